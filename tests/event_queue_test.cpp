// sim/event_queue.hpp: pending events ordered by (time, insertion sequence).
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// Pops every event, firing each, and returns the names they pushed in firing order.
std::vector<std::string> drain(EventQueue& queue, std::vector<std::string>& fired) {
    while (!queue.empty()) queue.pop().fire();
    return fired;
}

Event named_event(Instant at, std::vector<std::string>& fired, std::string name) {
    return Event{.at = at, .fire = [&fired, name] { fired.push_back(name); }};
}

}  // namespace

TEST_CASE("events at the same time come out in insertion order") {
    EventQueue queue;
    std::vector<std::string> fired;
    for (const char* name : {"a", "b", "c", "d", "e", "f", "g", "h"})
        queue.push(named_event(midnight + 5_s, fired, name));
    CHECK(drain(queue, fired) == std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h"});
}

TEST_CASE("earlier times come out first whatever the insertion order") {
    EventQueue queue;
    std::vector<std::string> fired;
    queue.push(named_event(midnight + 3_s, fired, "3s"));
    queue.push(named_event(midnight + 1_s, fired, "1s"));
    queue.push(named_event(midnight + 2_s, fired, "2s"));
    queue.push(named_event(midnight + 1_ns, fired, "1ns"));
    CHECK(drain(queue, fired) == std::vector<std::string>{"1ns", "1s", "2s", "3s"});
}

TEST_CASE("events are ordered by time first and insertion order second") {
    EventQueue queue;
    std::vector<std::string> fired;
    queue.push(named_event(midnight + 2_s, fired, "2s first"));
    queue.push(named_event(midnight + 1_s, fired, "1s first"));
    queue.push(named_event(midnight + 2_s, fired, "2s second"));
    queue.push(named_event(midnight + 1_s, fired, "1s second"));
    queue.push(named_event(midnight + 2_s, fired, "2s third"));
    CHECK(drain(queue, fired) ==
          std::vector<std::string>{"1s first", "1s second", "2s first", "2s second", "2s third"});
}

TEST_CASE("push numbers events in insertion order whatever sequence they carried") {
    EventQueue queue;
    std::vector<std::string> fired;
    Event late = named_event(midnight + 1_s, fired, "pushed first");
    late.sequence = 1000;
    Event early = named_event(midnight + 1_s, fired, "pushed second");
    early.sequence = 0;
    queue.push(std::move(late));
    queue.push(std::move(early));
    CHECK(queue.top().sequence == 0);
    CHECK(drain(queue, fired) == std::vector<std::string>{"pushed first", "pushed second"});
}

TEST_CASE("the queue reports its size and the next event without removing it") {
    EventQueue queue;
    std::vector<std::string> fired;
    CHECK(queue.empty());
    queue.push(named_event(midnight + 2_s, fired, "later"));
    queue.push(named_event(midnight + 1_s, fired, "sooner"));
    CHECK(queue.size() == 2);
    CHECK(queue.top().at == midnight + 1_s);
    CHECK(queue.size() == 2);
    Event next = queue.pop();
    CHECK(next.at == midnight + 1_s);
    next.fire();
    CHECK(fired == std::vector<std::string>{"sooner"});
    CHECK(queue.size() == 1);
    CHECK_FALSE(queue.empty());
}
