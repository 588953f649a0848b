#include "models/faults/partition_fault.hpp"

#include <fmt/format.h>

#include "models/faults/fault_roles.hpp"
#include "sim/duration_text.hpp"

#include <algorithm>
#include <tuple>

namespace locksim {
namespace {

// The nodes a partition cuts apart, as the world numbers them when it strikes.
struct Cut {
    std::vector<NodeId> a;
    std::vector<NodeId> b;
};

// Side a's role resolved to whoever plays it now, and side b as the world names it: every
// node not on side a when the file left it empty. A role's player named on side b is not
// cut off from itself. Nullopt: nobody plays the role.
std::optional<Cut> resolve(FaultWorld& world, const PartitionFault& f, NodeId trigger) {
    Cut cut;
    for (const auto& target : f.side_a) {
        const std::vector<NodeId> struck = world.struck(target, trigger);
        if (struck.empty()) return std::nullopt;
        cut.a.insert(cut.a.end(), struck.begin(), struck.end());
    }
    const auto& names = f.side_b.empty() ? world.engine().trace().node_names() : f.side_b;
    for (const auto& name : names)
        if (const NodeId id = world.node(name); std::find(cut.a.begin(), cut.a.end(), id) == cut.a.end())
            cut.b.push_back(id);
    return cut;
}

template <class Action>
void for_each_pair(const Cut& cut, bool one_way, Action action) {
    for (NodeId a : cut.a)
        for (NodeId b : cut.b) {
            action(a, b);
            if (!one_way) action(b, a);
        }
}

std::string names_of(FaultWorld& world, const std::vector<NodeId>& ids) {
    std::vector<std::string> names;
    for (NodeId id : ids) names.push_back(world.engine().node_name(id));
    return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace

PartitionFault PartitionFault::read(std::string_view, const FaultReader& reader) {
    reader.declare(entries[0]);
    PartitionFault partition;
    std::tie(partition.side_a, partition.side_b) = reader.sides("partition");
    // A drawn partition that never heals would end every later draw's story.
    if (reader.drawn() || reader.has("heal_after")) partition.heal_after = reader.amount("heal_after");
    partition.one_way = reader.flag("one_way");
    return partition;
}

void PartitionFault::write(FaultWriter& writer) const {
    writer.sides("partition", side_a, side_b);
    writer.instant("at", at);
    if (heal_after) writer.duration("heal_after", *heal_after);
    if (one_way) writer.flag("one_way", true);
}

std::string PartitionFault::words(std::string_view) const {
    std::vector<std::string> cut;
    for (const auto& target : side_a) cut.push_back(target_words(target));
    return fmt::format("a partition cuts {} {} {}{}", fmt::join(cut, ", "), one_way ? "off from" : "from",
                       side_b.empty() ? std::string("every other node") : fmt::format("{}", fmt::join(side_b, ", ")),
                       heal_after ? fmt::format(" for {}", format_duration(*heal_after)) : std::string(" for good"));
}

void PartitionFault::draw(const DrawnAmounts& amounts, RandomStream& random) {
    heal_after = amounts.draw("heal_after", random);
}

// A role is resolved once, as it strikes: the heal mends the links it cut, whoever plays
// the role by then.
void PartitionFault::strike(FaultWorld& world, NodeId trigger) const {
    const std::optional<Cut> cut = resolve(world, *this, trigger);
    if (!cut) {
        world.announce({});  // nobody plays the role: nothing is cut
        return;
    }
    const FaultCause cause = world.announce({}, "network");
    for_each_pair(*cut, one_way, [&world, cause](NodeId from, NodeId to) { world.network().cut(from, to, cause); });
    const std::string groups = world.describe_groups();
    const std::string sides = fmt::format("{} / {}", names_of(world, cut->a), names_of(world, cut->b));
    world.engine().record(no_node, trace_kind::network_partitioned,
                          {{"groups", groups}, {"one_way", one_way}, {"cut", sides}});
    if (!heal_after) return;
    world.engine().schedule_at(
        world.engine().now() + *heal_after, no_node, [&world, cut = *cut, one_way = one_way, cause, sides] {
            for_each_pair(cut, one_way,
                          [&world, cause](NodeId from, NodeId to) { world.network().heal(from, to, cause); });
            const std::string groups = world.describe_groups();
            // The same "cut" as the partition's, so that a reader pairs the two.
            world.engine().record(no_node, trace_kind::network_healed,
                                  {{"groups", groups}, {"one_way", one_way}, {"cut", sides}});
        });
}

PartitionFault PartitionFault::explored(std::string_view, std::string node, EventTrigger when,
                                        std::optional<Duration> size, const ExploreDetails& details) {
    return PartitionFault{{std::move(node)}, details.apart_from, Instant{}, size, details.one_way, std::move(when)};
}

}  // namespace locksim
