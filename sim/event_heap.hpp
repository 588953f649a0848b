#pragma once
// Pending events in an implicit 4-ary heap: fewer levels than a binary heap, and each
// node's four children share a cache line. The event queue's choice while it is small.
#include <cstddef>
#include <vector>

#include "sim/event.hpp"

namespace locksim {

class EventHeap {
public:
    void push(const Event& event) {
        std::size_t hole = heap_.size();
        heap_.push_back(event);
        while (hole > 0) {
            const std::size_t parent = (hole - 1) / arity;
            if (!fires_before(event, heap_[parent])) break;
            heap_[hole] = heap_[parent];
            hole = parent;
        }
        heap_[hole] = event;
    }
    bool empty() const { return heap_.empty(); }
    std::size_t size() const { return heap_.size(); }
    const Event& next() const { return heap_.front(); }
    Event pop() {
        const Event first = heap_.front();
        const Event last = heap_.back();
        heap_.pop_back();
        const std::size_t size = heap_.size();
        if (size == 0) return first;
        // Bottom-up (Floyd): walk the hole down to a leaf along the earliest children
        // without comparing against `last` on the way, then let `last` rise from there.
        // `last` came from the bottom, so it rarely rises far: fewer comparisons overall.
        std::size_t hole = 0;
        for (;;) {
            const std::size_t child = hole * arity + 1;
            if (child >= size) break;
            const std::size_t end = child + arity < size ? child + arity : size;
            std::size_t best = child;
            for (std::size_t other = child + 1; other < end; ++other)
                if (fires_before(heap_[other], heap_[best])) best = other;
            heap_[hole] = heap_[best];
            hole = best;
        }
        while (hole > 0) {
            const std::size_t parent = (hole - 1) / arity;
            if (!fires_before(last, heap_[parent])) break;
            heap_[hole] = heap_[parent];
            hole = parent;
        }
        heap_[hole] = last;
        return first;
    }
    // Takes every event out, in no particular order.
    std::vector<Event> take_all() { return std::move(heap_); }

private:
    static constexpr std::size_t arity = 4;
    std::vector<Event> heap_;
};

}  // namespace locksim
