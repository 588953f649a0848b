#pragma once
// What a delay spike and a loss burst share: a fault on the messages between two nodes
// (both ways unless one_way) for a while.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "models/faults/fault_world.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

struct LinkStrike {
    const std::string& from;
    const std::string& to;
    Duration length;
    bool one_way = false;
};

// A link's two ends as the world numbers them when the fault strikes, and the fault's
// fault.struck event, which the messages it touches name as their cause.
struct LinkEnds {
    NodeId from;
    NodeId to;
    FaultCause cause;
};

// Announces a fault on the link from `from` (a node's name, or a role resolved now:
// `trigger` is the node of its "when" event) to `to`, and returns its ends. Nullopt when
// it strikes no link: nobody plays the role (announced as striking no one), or its player
// is `to` itself (announced as striking the network, where it touches nothing).
std::optional<LinkEnds> struck_link(FaultWorld& world, const std::string& from, const std::string& to, NodeId trigger);

// Applies `apply(from, to, until, cause)` to each direction the fault strikes and records
// one trace event of `kind` on `from` with `fields` besides the link's. `cause` is the
// fault's fault.struck event, which the messages it touches name.
void strike_link(FaultWorld& world, NodeId trigger, const LinkStrike& link, const KindSpec& kind,
                 std::initializer_list<Field> fields,
                 const std::function<void(NodeId from, NodeId to, Instant until, FaultCause cause)>& apply);

}  // namespace locksim
