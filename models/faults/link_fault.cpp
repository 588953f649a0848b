#include "models/faults/link_fault.hpp"

namespace locksim {

void strike_link(FaultWorld& world, const LinkStrike& link, const KindSpec& kind, std::vector<Field> fields,
                 const std::function<void(NodeId from, NodeId to, Instant until, FaultCause cause)>& apply) {
    const NodeId from = world.node(link.from);
    const NodeId to = world.node(link.to);
    const FaultCause cause = world.announce({}, "network");
    const Instant until = world.engine().now() + link.length;
    apply(from, to, until, cause);
    if (!link.one_way) apply(to, from, until, cause);
    std::vector<Field> recorded{{"to", to}};
    recorded.insert(recorded.end(), fields.begin(), fields.end());
    recorded.push_back({"until", until});
    recorded.push_back({"one_way", link.one_way});
    world.engine().record(from, kind, std::move(recorded));
}

}  // namespace locksim
