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

    static constexpr FaultMember members[] = {
        {.name = "partition",
         .type = MemberType::sides,
         .required = true,
         .drawn_required = true,
         .doc = "The two sides, [[side a], [side b]]: at least one node on each, none on both; or one node's name, "
                "cut off from every other node. Messages between the sides are lost."},
        {.name = "heal_after",
         .type = MemberType::amount,
         .drawn_required = true,
         .doc = "How long until the partition heals, a duration. Default: it never heals.",
         .drawn_doc = "Each partition's length: a duration or a distribution; a drawn partition always heals."},
        {.name = "one_way",
         .type = MemberType::flag,
         .doc = "true: only messages from the first side to the second are lost. Default false."},
    };
    static constexpr FaultEntry entries[] = {
        {.key = "partition",
         .example = "{\"partition\": [[\"server-1\"], [\"lock-store\"]], \"at\": \"5s\", \"heal_after\": \"60s\"}: a "
                    "network partition.",
         .generators = "Random partitions between two fixed sides; each heals after a drawn time.",
         .members = members}};
    static constexpr const KindSpec* shown_by[] = {&trace_kind::network_partitioned};
    static constexpr std::string_view amounts[] = {"heal_after"};  // drawn in a generator, in draw() order
    // Explored as one node cut off, both ways (or only what it sends, "one_way"), from the
    // nodes of "apart_from" (every other node without it) until it heals.
    static constexpr ExploreShape explore[] = {ExploreShape{
        .key = "partition",
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
        .size_joint = ", healing after ",
        .description = "Partitions cutting each target off, both ways (only what it sends, with one_way), from "
                       "the nodes of apart_from (every other node without it), at every strike point of each "
                       "target.",
        .size_doc = "How long until the partition heals; null: it never heals. A list tries each; a range "
                    "{\"from\", \"to\"} is explored exactly. Default: it never heals.",
        .other_side_doc = "The nodes each target is cut off from: a node name, a list of them, or "
                          "\"servers\". Default: every other node."}};

    static PartitionFault read(std::string_view key, const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "server-1 pauses 40s": what it does, in words; `who` names the node it strikes.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
    static PartitionFault explored(std::string_view key, std::string node, EventTrigger when,
                                   std::optional<Duration> size, const ExploreDetails& details);
};

}  // namespace locksim
