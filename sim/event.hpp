#pragma once
// One pending event of a run: when it is due, its place among events due at the same
// instant, what it does, and the node it runs on.
//
// An event is a small trivially copyable record: what it does is either "resume this
// coroutine" (a process waking from a sleep, the common case, which allocates nothing)
// or "call callback n" from a table the engine keeps.
#include <cstdint>
#include <type_traits>

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

// The order events fire in: by time, and among equal times by insertion sequence.
inline bool fires_before(const Event& a, const Event& b) {
    return a.at < b.at || (a.at == b.at && a.sequence < b.sequence);
}

}  // namespace locksim
