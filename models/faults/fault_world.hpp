#pragma once
// The world as a fault strikes it: the engine's own faults (pause, clock, crash), the
// network's, and the world's roles and announcements. The world implements it; a family
// strikes through it and knows nothing else of the world.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/engine.hpp"
#include "sim/network.hpp"

namespace locksim {

class FaultWorld {
public:
    virtual ~FaultWorld() = default;

    virtual Engine& engine() = 0;
    virtual Network& network() = 0;
    virtual NodeId node(const std::string& name) const = 0;
    // The nodes a target names now: a role names whoever plays it (maybe no one);
    // `trigger` is the node that recorded the fault's "when" event (no_node: none).
    virtual std::vector<NodeId> struck(const std::string& target, NodeId trigger) const = 0;
    // Says in the trace which fault struck whom, before what it does. No targets: a fault
    // on links ("network"), or a role that had no one ("none"). Returns the sequence number
    // of the first event it recorded, which a fault on links gives the network as the cause
    // of what it does to messages.
    virtual std::uint64_t announce(const std::vector<NodeId>& targets, std::string_view without_target = "none") = 0;
    // "server-1, server-2 | lock-store": who can still reach whom.
    virtual std::string describe_groups() const = 0;
};

}  // namespace locksim
