#include "models/faults/link_fault.hpp"

namespace locksim {

std::optional<LinkEnds> struck_link(FaultWorld& world, const std::string& from, const std::string& to, NodeId trigger) {
    const std::vector<NodeId> ends = world.struck(from, trigger);
    if (ends.empty()) {
        world.announce({});  // nobody plays the role
        return std::nullopt;
    }
    const NodeId other = world.node(to);
    const FaultCause cause = world.announce({}, "network");
    if (ends.front() == other) return std::nullopt;  // the role's player is the other end: no link to strike
    return LinkEnds{ends.front(), other, cause};
}

void strike_link(FaultWorld& world, NodeId trigger, const LinkStrike& link, const KindSpec& kind,
                 std::initializer_list<Field> fields,
                 const std::function<void(NodeId from, NodeId to, Instant until, FaultCause cause)>& apply) {
    const std::optional<LinkEnds> ends = struck_link(world, link.from, link.to, trigger);
    if (!ends) return;
    const auto [from, to, cause] = *ends;
    const Instant until = world.engine().now() + link.length;
    apply(from, to, until, cause);
    if (!link.one_way) apply(to, from, until, cause);
    FieldList recorded{{"to", to}};
    for (const Field& field : fields) recorded.push_back(field);
    recorded.push_back({"until", until});
    recorded.push_back({"one_way", link.one_way});
    world.engine().record(from, kind, recorded);
}

}  // namespace locksim
