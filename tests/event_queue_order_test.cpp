// The event queue's two structures (sim/event_heap.hpp, sim/radix_event_heap.hpp) and the
// queue that moves events between them, against a plain reference: random workloads that
// push and pop the way a simulation does (never into the past, many ties, events due at
// the very instant just popped, peeks between pops), sizes that cross the queue's
// thresholds up and down, compared pop for pop with a sorted multiset.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <utility>

#include "sim/event_heap.hpp"
#include "sim/event_queue.hpp"
#include "sim/radix_event_heap.hpp"

using namespace locksim;

namespace {

// A small deterministic generator (the test must not depend on std:: distributions).
struct Lcg {
    std::uint64_t state;
    std::uint64_t next() {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return state >> 33;
    }
    std::uint64_t below(std::uint64_t bound) { return next() % bound; }
};

// How far ahead a new event is due: zero (the instant just popped) often, otherwise a
// span from nanoseconds to hours, so every bucket of the radix heap is used.
std::int64_t delay(Lcg& random) {
    switch (random.below(4)) {
        case 0: return 0;
        case 1: return static_cast<std::int64_t>(random.below(8));
        case 2: return static_cast<std::int64_t>(random.below(1'000'000));
        default: return static_cast<std::int64_t>(random.below(1ULL << 42));
    }
}

// Grows the queue to about `peak` events, then shrinks it, `rounds` times; every pop is
// checked against the reference, and so is every peek.
template <class Queue, class Push>
void compare_with_reference(Queue& queue, Push push, std::uint64_t seed, std::size_t peak, int rounds) {
    Lcg random{seed};
    std::set<std::pair<std::int64_t, std::uint64_t>> expected;  // (time, sequence)
    std::int64_t now = 1'000;
    std::uint64_t sequence = 0;
    auto push_one = [&] {
        const Instant at{now + delay(random)};
        push(Event{.at = at, .sequence = sequence, .action = EventAction::call(static_cast<std::uint32_t>(sequence))});
        expected.emplace(at.ns, sequence);
        ++sequence;
    };
    auto pop_one = [&] {
        REQUIRE(queue.next().at.ns == expected.begin()->first);
        const Event event = queue.pop();
        REQUIRE(event.at.ns == expected.begin()->first);
        REQUIRE(event.action.callback() == expected.begin()->second);
        expected.erase(expected.begin());
        now = event.at.ns;
    };
    for (int round = 0; round < rounds; ++round) {
        while (expected.size() < peak) {  // mostly pushes, some pops
            if (random.below(4) == 0 && !expected.empty())
                pop_one();
            else
                push_one();
        }
        while (expected.size() > 1) {  // mostly pops; each popped event may schedule more
            pop_one();
            if (random.below(3) == 0) push_one();
        }
    }
    while (!expected.empty()) pop_one();
    CHECK(queue.empty());
    CHECK(sequence > peak);
}

}  // namespace

TEST_CASE("the 4-ary heap pops in (time, sequence) order under a simulation's workload") {
    for (std::uint64_t seed : {1, 2, 3}) {
        EventHeap heap;
        compare_with_reference(
            heap, [&](const Event& event) { heap.push(event); }, seed, 500, 3);
    }
}

TEST_CASE("the radix heap pops in (time, sequence) order under a simulation's workload") {
    for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
        RadixEventHeap radix;
        compare_with_reference(
            radix, [&](const Event& event) { radix.push(event); }, seed, 2'000, 3);
    }
}

TEST_CASE("the radix heap keeps ties in push order when an event is due at the instant just popped") {
    RadixEventHeap radix;
    radix.push(Event{.at = Instant{10}, .sequence = 0, .action = EventAction::call(1)});
    radix.push(Event{.at = Instant{50}, .sequence = 1, .action = EventAction::call(2)});
    CHECK(radix.next().action.callback() == 1);  // found by a search, not yet moved
    CHECK(radix.pop().action.callback() == 1);
    CHECK(radix.next().action.callback() == 2);
    // Scheduled at the instant just popped: it comes before the event found above.
    radix.push(Event{.at = Instant{10}, .sequence = 2, .action = EventAction::call(3)});
    radix.push(Event{.at = Instant{10}, .sequence = 3, .action = EventAction::call(4)});
    CHECK(radix.pop().action.callback() == 3);
    CHECK(radix.pop().action.callback() == 4);
    CHECK(radix.pop().action.callback() == 2);
    CHECK(radix.empty());
}

TEST_CASE("the event queue keeps the order while it moves its events between heap and radix heap") {
    // Peaks on both sides of the thresholds, so that the queue changes structure many
    // times mid-run with ties and zero delays pending.
    for (std::size_t peak : {EventQueue::heap_below / 2, EventQueue::radix_above + 1, EventQueue::radix_above * 8}) {
        for (std::uint64_t seed : {7, 8, 9}) {
            EventQueue queue;
            compare_with_reference(
                queue, [&](const Event& event) { queue.push(event); }, seed, peak, 4);
        }
    }
}

TEST_CASE("the radix heap keeps the order when many events land inside a sorted run") {
    // Two events far apart become the run; hundreds of events then fall between them, so
    // the run grows until it is dissolved back into the buckets, then fills again.
    RadixEventHeap radix;
    std::set<std::pair<std::int64_t, std::uint64_t>> expected;
    std::uint64_t sequence = 0;
    auto push = [&](std::int64_t at) {
        radix.push(Event{.at = Instant{at},
                         .sequence = sequence,
                         .action = EventAction::call(static_cast<std::uint32_t>(sequence))});
        expected.emplace(at, sequence++);
    };
    auto pop = [&] {
        const Event event = radix.pop();
        REQUIRE(event.at.ns == expected.begin()->first);
        REQUIRE(event.action.callback() == expected.begin()->second);
        expected.erase(expected.begin());
        return event.at.ns;
    };
    push(10);
    push(1'000);
    push(1'000 + (std::int64_t{1} << 39));
    std::int64_t now = pop();
    Lcg random{42};
    for (int burst = 0; burst < 20; ++burst) {
        // On a coarse grid, so that many are due at the same time as each other and as
        // events already in the run or the buckets.
        for (int i = 0; i < 300; ++i) push(now + static_cast<std::int64_t>(random.below(512) << 29));
        for (int i = 0; i < 250; ++i) now = pop();
    }
    while (!expected.empty()) pop();
    CHECK(radix.empty());
}

TEST_CASE("a dissolved run's events go back ahead of later events due at the same time") {
    RadixEventHeap radix;
    std::uint32_t next_name = 0;
    auto push = [&](std::int64_t at) {
        radix.push(Event{.at = Instant{at}, .sequence = next_name, .action = EventAction::call(next_name)});
        return next_name++;
    };
    const std::int64_t late = std::int64_t{1} << 40;
    push(10);
    const std::uint32_t first_late = push(late);
    REQUIRE(radix.pop().at.ns == 10);      // the run is now the event at `late`
    std::vector<std::uint32_t> also_late;  // due with it, so they wait in a bucket (more than a sorted run holds)
    for (int i = 0; i < 20; ++i) also_late.push_back(push(late));
    std::vector<std::uint32_t> between;
    for (int i = 0; i < 100; ++i) between.push_back(push(1'000 + i));  // the run grows past its limit
    for (std::uint32_t name : between) REQUIRE(radix.pop().action.callback() == name);
    CHECK(radix.pop().action.callback() == first_late);
    for (std::uint32_t name : also_late) CHECK(radix.pop().action.callback() == name);
    CHECK(radix.empty());
}

TEST_CASE("events due at the run's own instant, pushed as fast as it drains, keep their order") {
    RadixEventHeap radix;
    std::uint64_t sequence = 0;
    auto push = [&](std::int64_t at) {
        radix.push(Event{.at = Instant{at},
                         .sequence = sequence,
                         .action = EventAction::call(static_cast<std::uint32_t>(sequence))});
        ++sequence;
    };
    for (int far = 0; far < 100; ++far) push(1'000'000 + far);
    push(5);
    push(5);
    // Two processes taking turns at one instant, 10,000 times each: the run never drains.
    std::uint32_t last = 0;
    for (int turn = 0; turn < 20'000; ++turn) {
        const Event event = radix.pop();
        REQUIRE(event.at.ns == 5);
        if (turn > 0) REQUIRE(event.action.callback() > last);
        last = event.action.callback();
        push(5);
    }
    for (int i = 0; i < 2; ++i) REQUIRE(radix.pop().at.ns == 5);
    for (int far = 0; far < 100; ++far) REQUIRE(radix.pop().at.ns == 1'000'000 + far);
    CHECK(radix.empty());
}
