#pragma once
// The pending events of a run, totally ordered by (time, insertion sequence): two
// events due at the same instant always fire in the order they were scheduled.
//
// Two structures give that order, each best at one size: a small 4-ary heap is the
// quickest for a handful of events, a radix heap for many (it never compares against the
// whole queue). The queue moves its events from one to the other as it grows and
// shrinks, with room between the two thresholds so that it does not flap.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "sim/event.hpp"
#include "sim/event_heap.hpp"
#include "sim/radix_event_heap.hpp"

namespace locksim {

class EventQueue {
public:
    static constexpr std::size_t radix_above = 64;  // measured with the hold model: the two cross near 64
    static constexpr std::size_t heap_below = radix_above / 4;

    void push(Event event) {
        event.sequence = next_sequence_++;
        if (in_radix_) return radix_.push(event);
        heap_.push(event);
        if (heap_.size() > radix_above) move_to_radix();
    }
    bool empty() const { return in_radix_ ? radix_.empty() : heap_.empty(); }
    // Past the small heap: events likely far apart in memory.
    bool large() const { return in_radix_; }
    std::size_t size() const { return in_radix_ ? radix_.size() : heap_.size(); }
    // The next event, left in place; the queue must not be empty.
    const Event& next() { return in_radix_ ? radix_.next() : heap_.next(); }
    Event pop() {
        if (!in_radix_) return heap_.pop();
        const Event event = radix_.pop();
        if (radix_.size() < heap_below) move_to_heap();
        return event;
    }

private:
    [[gnu::noinline]] void move_to_radix() {
        std::vector<Event> events = heap_.take_all();
        // The radix heap keeps ties in the order they arrive.
        std::sort(events.begin(), events.end(), fires_before);
        for (const Event& event : events) radix_.push(event);
        in_radix_ = true;
    }
    [[gnu::noinline]] void move_to_heap() {
        for (const Event& event : radix_.take_all()) heap_.push(event);
        in_radix_ = false;
    }

    EventHeap heap_;
    RadixEventHeap radix_;
    bool in_radix_ = false;
    std::uint64_t next_sequence_ = 0;
};

}  // namespace locksim
