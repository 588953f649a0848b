#pragma once
// A pause: the node freezes for a while (a garbage-collection pause, SIGSTOP, swapping)
// and then runs on, unaware that time passed.
//   {"pause": "server-1", "at": "6s", "for": "40s", "kind": "gc"}
#include <optional>
#include <string>
#include <string_view>

#include "models/faults/drawn_amounts.hpp"
#include "models/faults/event_trigger.hpp"
#include "models/faults/explore_shape.hpp"
#include "models/faults/fault_reader.hpp"
#include "models/faults/fault_world.hpp"
#include "models/faults/fault_writer.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

struct PauseFault {
    std::string node;
    Instant at;  // true time
    Duration length;
    std::string cause;                 // "gc", "sigstop", "swap"
    std::optional<EventTrigger> when;  // if set, the fault strikes then and `at` is unused

    static constexpr std::string_view causes[] = {"gc", "sigstop", "swap"};
    static constexpr FaultMember members[] = {
        {.name = "pause",
         .type = MemberType::target,
         .required = true,
         .drawn_required = true,
         .doc = "The node to pause (a GC, SIGSTOP or swap): timers that fall due and messages that arrive are handled "
                "when it resumes; its code cannot see the time pass."},
        {.name = "for",
         .type = MemberType::amount,
         .required = true,
         .drawn_required = true,
         .rule = {.above_zero = true, .above_zero_help = "expected a pause longer than 0s"},
         .doc = "How long the pause lasts, a duration above 0s.",
         .drawn_doc = "Each pause's length: a duration or a distribution such as {\"pareto\": {\"min\": \"500ms\", "
                      "\"alpha\": 1.0, \"max\": \"2m\"}}."},
        {.name = "kind",
         .type = MemberType::choice,
         .choices = causes,
         .doc = "The pause's cause: \"gc\", \"sigstop\" or \"swap\". Default \"gc\".",
         .drawn_doc = "The pauses' cause: \"gc\", \"sigstop\" or \"swap\". Default \"gc\"."},
    };
    static constexpr FaultEntry entries[] = {
        {.key = "pause",
         .example =
             "{\"pause\": \"server-1\", \"at\": \"6s\", \"for\": \"40s\", \"kind\": \"gc\"}: the node is frozen.",
         .generators = "Random pauses on each target.",
         .members = members}};
    static constexpr const KindSpec* shown_by[] = {&trace_kind::node_paused};
    static constexpr std::string_view amounts[] = {"for"};  // drawn in a generator, in draw() order
    static constexpr ExploreShape explore[] = {
        ExploreShape{.key = "pause",
                     .size_field = "for",
                     .has_cause = true,
                     .has_end = true,
                     .name = "pause",
                     .listing = "pauses of",
                     .size_joint = " ",
                     .description = "Pauses of each length at every strike point of each target.",
                     .size_doc = "The lengths to try: a list, or a range {\"from\", \"to\"} explored exactly."}};

    static PauseFault read(std::string_view key, const FaultReader& reader);
    // "kind": gc (the default), sigstop or swap; `fail` names the field's place.
    static std::string read_cause(const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "server-1 pauses 40s": what it does, in words; `who` names the node it strikes.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
    static PauseFault explored(std::string_view key, std::string node, EventTrigger when, std::optional<Duration> size,
                               const ExploreDetails& details);
};

}  // namespace locksim
