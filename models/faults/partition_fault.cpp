#include "models/faults/partition_fault.hpp"

#include <fmt/format.h>

#include "sim/duration_text.hpp"

#include <algorithm>
#include <tuple>

namespace locksim {
namespace {

// Side b as the world names it: every node not on side a when the file left it empty.
std::vector<std::string> other_side(FaultWorld& world, const PartitionFault& f) {
    if (!f.side_b.empty()) return f.side_b;
    std::vector<std::string> others;
    for (const auto& name : world.engine().trace().node_names())
        if (std::find(f.side_a.begin(), f.side_a.end(), name) == f.side_a.end()) others.push_back(name);
    return others;
}

template <class Action>
void for_each_pair(FaultWorld& world, const PartitionFault& f, Action action) {
    const std::vector<std::string> side_b = other_side(world, f);
    for (const auto& a : f.side_a)
        for (const auto& b : side_b) {
            action(world.node(a), world.node(b));
            if (!f.one_way) action(world.node(b), world.node(a));
        }
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
    return fmt::format("a partition cuts {} {} {}{}", fmt::join(side_a, ", "), one_way ? "off from" : "from",
                       side_b.empty() ? std::string("every other node") : fmt::format("{}", fmt::join(side_b, ", ")),
                       heal_after ? fmt::format(" for {}", format_duration(*heal_after)) : std::string(" for good"));
}

void PartitionFault::draw(const DrawnAmounts& amounts, RandomStream& random) {
    heal_after = amounts.draw("heal_after", random);
}

void PartitionFault::strike(FaultWorld& world, NodeId) const {
    const FaultCause cause = world.announce({}, "network");
    for_each_pair(world, *this, [&world, cause](NodeId from, NodeId to) { world.network().cut(from, to, cause); });
    world.engine().record(
        no_node, trace_kind::network_partitioned,
        {{"groups", world.describe_groups()},
         {"one_way", one_way},
         {"cut", fmt::format("{} / {}", fmt::join(side_a, ", "), fmt::join(other_side(world, *this), ", "))}});
    if (!heal_after) return;
    world.engine().schedule_at(world.engine().now() + *heal_after, no_node, [&world, f = *this, cause] {
        for_each_pair(world, f, [&world, cause](NodeId from, NodeId to) { world.network().heal(from, to, cause); });
        world.engine().record(no_node, trace_kind::network_healed, {{"groups", world.describe_groups()}});
    });
}

PartitionFault PartitionFault::explored(std::string node, EventTrigger when, std::optional<Duration> size,
                                        const ExploreDetails& details) {
    return PartitionFault{{std::move(node)}, details.apart_from, Instant{}, size, details.one_way, std::move(when)};
}

}  // namespace locksim
