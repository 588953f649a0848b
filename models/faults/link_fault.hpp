#pragma once
// What a delay spike and a loss burst share: a fault on the messages between two nodes
// (both ways unless one_way) for a while.
#include <functional>
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

// Applies `apply(from, to, until, cause)` to each direction the fault strikes and records
// one trace event of `kind` on `from` with `fields` besides the link's. `cause` is the
// fault's fault.struck event, which the messages it touches name.
void strike_link(FaultWorld& world, const LinkStrike& link, const KindSpec& kind, std::vector<Field> fields,
                 const std::function<void(NodeId from, NodeId to, Instant until, FaultCause cause)>& apply);

}  // namespace locksim
