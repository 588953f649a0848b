#pragma once
// The pending events of a run, totally ordered by (time, insertion sequence): two
// events due at the same instant always fire in the order they were scheduled.
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "sim/node_id.hpp"
#include "sim/time.hpp"

namespace locksim {

struct Event {
    Instant at;
    std::uint64_t sequence = 0;
    NodeId node;                    // the node it runs on, or no_node for the world
    std::uint32_t incarnation = 0;  // the node's incarnation when scheduled; a crash makes it stale
    std::function<void()> fire;
};

class EventQueue {
public:
    void push(Event event) {
        event.sequence = next_sequence_++;
        heap_.push(std::move(event));
    }
    bool empty() const { return heap_.empty(); }
    const Event& top() const { return heap_.top(); }
    Event pop() {
        // priority_queue::top is const; moving out before pop is safe because pop only
        // needs the element's ordering keys, which the move leaves intact.
        Event event = std::move(const_cast<Event&>(heap_.top()));
        heap_.pop();
        return event;
    }
    std::size_t size() const { return heap_.size(); }

private:
    struct Later {
        bool operator()(const Event& a, const Event& b) const {
            if (a.at != b.at) return a.at > b.at;
            return a.sequence > b.sequence;
        }
    };
    std::priority_queue<Event, std::vector<Event>, Later> heap_;
    std::uint64_t next_sequence_ = 0;
};

}  // namespace locksim
