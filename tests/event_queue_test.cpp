// sim/event_queue.hpp: pending events ordered by (time, insertion sequence).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sim/event_queue.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// Events carry a callback index; here it indexes a list of names, so the order in which
// events come out reads as the names.
struct Names {
    std::vector<std::string> list{""};  // index 0 means "no callback"
    std::uint32_t add(std::string name) {
        list.push_back(std::move(name));
        return static_cast<std::uint32_t>(list.size() - 1);
    }
};

// Pops every event and returns the names of their callbacks in popping order.
std::vector<std::string> drain(EventQueue& queue, const Names& names, std::vector<std::string>& fired) {
    while (!queue.empty()) fired.push_back(names.list[queue.pop().action.callback()]);
    return fired;
}

}  // namespace

TEST_CASE("events at the same time come out in insertion order") {
    EventQueue queue;
    std::vector<std::string> fired;
    Names names;
    for (const char* name : {"a", "b", "c", "d", "e", "f", "g", "h"})
        queue.push(Event{.at = midnight + 5_s, .action = EventAction::call(names.add(name))});
    CHECK(drain(queue, names, fired) == std::vector<std::string>{"a", "b", "c", "d", "e", "f", "g", "h"});
}

TEST_CASE("earlier times come out first whatever the insertion order") {
    EventQueue queue;
    std::vector<std::string> fired;
    Names names;
    queue.push(Event{.at = midnight + 3_s, .action = EventAction::call(names.add("3s"))});
    queue.push(Event{.at = midnight + 1_s, .action = EventAction::call(names.add("1s"))});
    queue.push(Event{.at = midnight + 2_s, .action = EventAction::call(names.add("2s"))});
    queue.push(Event{.at = midnight + 1_ns, .action = EventAction::call(names.add("1ns"))});
    CHECK(drain(queue, names, fired) == std::vector<std::string>{"1ns", "1s", "2s", "3s"});
}

TEST_CASE("events are ordered by time first and insertion order second") {
    EventQueue queue;
    std::vector<std::string> fired;
    Names names;
    queue.push(Event{.at = midnight + 2_s, .action = EventAction::call(names.add("2s first"))});
    queue.push(Event{.at = midnight + 1_s, .action = EventAction::call(names.add("1s first"))});
    queue.push(Event{.at = midnight + 2_s, .action = EventAction::call(names.add("2s second"))});
    queue.push(Event{.at = midnight + 1_s, .action = EventAction::call(names.add("1s second"))});
    queue.push(Event{.at = midnight + 2_s, .action = EventAction::call(names.add("2s third"))});
    CHECK(drain(queue, names, fired) ==
          std::vector<std::string>{"1s first", "1s second", "2s first", "2s second", "2s third"});
}

TEST_CASE("push numbers events in insertion order whatever sequence they carried") {
    EventQueue queue;
    std::vector<std::string> fired;
    Names names;
    Event late = Event{.at = midnight + 1_s, .action = EventAction::call(names.add("pushed first"))};
    late.sequence = 1000;
    Event early = Event{.at = midnight + 1_s, .action = EventAction::call(names.add("pushed second"))};
    early.sequence = 0;
    queue.push(std::move(late));
    queue.push(std::move(early));
    CHECK(queue.next().sequence == 0);
    CHECK(drain(queue, names, fired) == std::vector<std::string>{"pushed first", "pushed second"});
}

TEST_CASE("the queue reports its size and the next event without removing it") {
    EventQueue queue;
    std::vector<std::string> fired;
    Names names;
    CHECK(queue.empty());
    queue.push(Event{.at = midnight + 2_s, .action = EventAction::call(names.add("later"))});
    queue.push(Event{.at = midnight + 1_s, .action = EventAction::call(names.add("sooner"))});
    CHECK(queue.size() == 2);
    CHECK(queue.next().at == midnight + 1_s);
    CHECK(queue.size() == 2);
    Event next = queue.pop();
    CHECK(next.at == midnight + 1_s);
    CHECK(names.list[next.action.callback()] == "sooner");
    CHECK(queue.size() == 1);
    CHECK_FALSE(queue.empty());
}

TEST_CASE("a thousand events pushed in scrambled order come out sorted by time, ties in push order") {
    EventQueue queue;
    std::vector<std::pair<std::int64_t, std::uint32_t>> pushed;
    std::uint64_t state = 12345;
    for (std::uint32_t i = 1; i <= 1000; ++i) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const std::int64_t at = static_cast<std::int64_t>((state >> 33) % 50);  // many ties
        queue.push(Event{.at = Instant{at}, .action = EventAction::call(i)});
        pushed.emplace_back(at, i);
    }
    std::stable_sort(pushed.begin(), pushed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [at, index] : pushed) {
        const Event next = queue.pop();
        REQUIRE(next.at.ns == at);
        REQUIRE(next.action.callback() == index);
    }
    CHECK(queue.empty());
}
