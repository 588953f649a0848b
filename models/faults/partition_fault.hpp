#pragma once
// A partition: the nodes on one side stop hearing those on the other (only one way if
// `one_way`), until it heals.
//   {"partition": [["server-1"], ["lock-store"]], "at": "5s", "heal_after": "30s"}
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/faults/drawn_amounts.hpp"
#include "models/faults/event_trigger.hpp"
#include "models/faults/explore_shape.hpp"
#include "models/faults/fault_reader.hpp"
#include "models/faults/fault_world.hpp"
#include "models/faults/fault_writer.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

// Nodes in `side_a` and `side_b` stop hearing each other (only a→b if one_way).
struct PartitionFault {
    std::vector<std::string> side_a;
    std::vector<std::string> side_b;  // empty: every node not on side a
    Instant at;
    std::optional<Duration> heal_after;  // none: it never heals
    bool one_way = false;
    std::optional<EventTrigger> when;

    static constexpr std::string_view keys[] = {"partition"};
    static constexpr const KindSpec* shown_by[] = {&trace_kind::network_partitioned};
    static constexpr std::string_view amounts[] = {"heal_after"};  // drawn in a generator, in draw() order
    // Explored as one node cut off, both ways (or only what it sends, "one_way"), from the
    // nodes of "apart_from" (every other node without it) until it heals.
    static constexpr std::optional<ExploreShape> explore =
        ExploreShape{.key = "partition",
                     .size_field = "heal_after",
                     .size_may_be_null = true,
                     .no_end = "never heals",
                     .no_end_gerund = "never healing",
                     .has_end = true,
                     .strikes_links = true,
                     .other_side_field = "apart_from",
                     .may_be_one_way = true,
                     .name = "partition",
                     .listing = "partitions cutting one node off, healing after",
                     .size_joint = ", healing after "};

    static PartitionFault read(std::string_view key, const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "server-1 pauses 40s": what it does, in words; `who` names the node it strikes.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
    static PartitionFault explored(std::string node, EventTrigger when, std::optional<Duration> size,
                                   const ExploreDetails& details);
};

}  // namespace locksim
