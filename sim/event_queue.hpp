#pragma once
// The pending events of a run, totally ordered by (time, insertion sequence): two
// events due at the same instant always fire in the order they were scheduled.
//
// An event is a small trivially copyable record: what it does is either "resume this
// coroutine" (a process waking from a sleep, the common case, which allocates nothing)
// or "call callback n" from a table the engine keeps. The queue is an implicit 4-ary
// heap: fewer levels than a binary heap and each node's children share a cache line.
#include <cstdint>
#include <type_traits>
#include <vector>

#include "sim/node_id.hpp"
#include "sim/time.hpp"

namespace locksim {

// What an event does, in one word: a coroutine frame's address (frames are aligned, so
// its low bit is 0), or a callback index shifted left with the low bit set.
class EventAction {
public:
    static EventAction resume(void* frame) { return EventAction(reinterpret_cast<std::uintptr_t>(frame)); }
    static EventAction call(std::uint32_t callback) { return EventAction((std::uintptr_t{callback} << 1) | 1); }

    bool is_resume() const { return (word_ & 1) == 0; }
    void* frame() const { return reinterpret_cast<void*>(word_); }
    std::uint32_t callback() const { return static_cast<std::uint32_t>(word_ >> 1); }

private:
    explicit EventAction(std::uintptr_t word) : word_(word) {}
    std::uintptr_t word_ = 0;
};

struct Event {
    Instant at;
    std::uint64_t sequence = 0;
    EventAction action = EventAction::call(0);
    NodeId node;                    // the node it runs on, or no_node for the world
    std::uint32_t incarnation = 0;  // the node's incarnation when scheduled; a crash makes it stale
};
static_assert(std::is_trivially_copyable_v<Event>);
static_assert(sizeof(Event) == 32, "two events to a cache line");

class EventQueue {
public:
    void push(Event event) {
        event.sequence = next_sequence_++;
        std::size_t hole = heap_.size();
        heap_.push_back(event);
        while (hole > 0) {
            const std::size_t parent = (hole - 1) / arity;
            if (!earlier(event, heap_[parent])) break;
            heap_[hole] = heap_[parent];
            hole = parent;
        }
        heap_[hole] = event;
    }
    bool empty() const { return heap_.empty(); }
    const Event& top() const { return heap_.front(); }
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
                if (earlier(heap_[other], heap_[best])) best = other;
            heap_[hole] = heap_[best];
            hole = best;
        }
        while (hole > 0) {
            const std::size_t parent = (hole - 1) / arity;
            if (!earlier(last, heap_[parent])) break;
            heap_[hole] = heap_[parent];
            hole = parent;
        }
        heap_[hole] = last;
        return first;
    }
    std::size_t size() const { return heap_.size(); }
    void reserve(std::size_t events) { heap_.reserve(events); }

private:
    static constexpr std::size_t arity = 4;
    static bool earlier(const Event& a, const Event& b) {
        return a.at < b.at || (a.at == b.at && a.sequence < b.sequence);
    }
    std::vector<Event> heap_;
    std::uint64_t next_sequence_ = 0;
};

}  // namespace locksim
