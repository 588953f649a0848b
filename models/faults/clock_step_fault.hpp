#pragma once
// A clock fault: the node's wall clock jumps (an operator, a bad NTP server, a VM resumed)
// or, for an offset under NTP's 128 ms, is slewed: corrected gradually at 500 ppm. The
// monotonic clock never moves: only what is timed on the wall clock notices.
//   {"clock_step": "server-1", "at": "10s", "by": "-5s"}
//   {"clock_slew": "server-1", "at": "10s", "by": "100ms"}
// What its trace events did and their words, for readers of the trace: clock_events.hpp.
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

struct ClockStepFault {
    std::string node;
    Instant at;      // true time
    Duration delta;  // how far the wall clock jumps; negative jumps back
    std::optional<EventTrigger> when;
    bool slew = false;  // corrected gradually at 500 ppm instead of in one step (NTP under 128 ms)

    static constexpr FaultMember step_members[] = {
        {.name = "clock_step",
         .type = MemberType::target,
         .required = true,
         .drawn_required = true,
         .doc = "The node whose wall clock jumps; its monotonic clock does not, and alarms set on the wall clock move "
                "with it."},
        {.name = "by",
         .type = MemberType::amount,
         .required = true,
         .drawn_required = true,
         .rule = {.signed_values = true},
         .doc = "How far the wall clock jumps, a signed duration: negative steps it back.",
         .drawn_doc = "Each step: a signed duration, or {\"uniform\": [\"-40s\", \"40s\"]}."},
    };
    // NTP slews an offset under 128 ms; it steps a larger one.
    static constexpr AmountRule slew_offset{
        .signed_values = true,
        .bound = milliseconds(128),
        .bound_help = "NTP slews offsets under 128ms; a larger one it steps (use clock_step)"};
    static constexpr FaultMember slew_members[] = {
        {.name = "clock_slew",
         .type = MemberType::node,
         .required = true,
         .drawn_required = true,
         .doc = "The node whose wall clock NTP slews: a gradual correction of 0.5 ms per second, never a visible "
                "step."},
        {.name = "by",
         .type = MemberType::amount,
         .required = true,
         .drawn_required = true,
         .rule = slew_offset,
         .doc = "The offset to correct, a signed duration under 128ms either way (NTP steps larger ones: use "
                "clock_step; the loader checks the bound).",
         .drawn_doc = "Each slew: a signed duration or a uniform range [low, high] within -128ms … 128ms."},
    };
    static constexpr FaultEntry entries[] = {
        {.key = "clock_step",
         .example = "{\"clock_step\": \"lock-store\", \"at\": \"6s\", \"by\": \"40s\"}: a wall-clock jump.",
         .generators = "Random wall-clock steps on each target.",
         .members = step_members},
        {.key = "clock_slew",
         .example = "{\"clock_slew\": \"lock-store\", \"at\": \"6s\", \"by\": \"-100ms\"}: NTP's gradual correction.",
         .generators = "Random clock slews on each target: NTP correcting an offset under 128 ms at 500 ppm.",
         .members = slew_members},
    };
    static constexpr const KindSpec* shown_by[] = {&trace_kind::clock_stepped, &trace_kind::clock_slewing};
    static constexpr std::string_view amounts[] = {"by"};  // drawn in a generator, in draw() order
    // A step's size is explored to 1 ms at every start; a slew's too, within NTP's bound:
    // its few milliseconds can still tip a check that runs on the wall clock.
    static constexpr ExploreShape explore[] = {
        ExploreShape{.key = "clock_step",
                     .size_field = "by",
                     .size_rule = {.signed_values = true},
                     .sized_range = true,
                     .name = "clock step",
                     .listing = "clock steps by",
                     .size_joint = " by ",
                     .description = "Wall-clock steps of each size at every strike point of each target.",
                     .size_doc =
                         "The steps to try; negative steps go back. Or a signed range {\"from\": \"-40s\", \"to\": "
                         "\"40s\"}, from below to: explored at every start, refined to 1 ms."},
        ExploreShape{.key = "clock_slew",
                     .size_field = "by",
                     .size_rule = slew_offset,
                     .sized_range = true,
                     .name = "clock slew",
                     .listing = "clock slews by",
                     .size_joint = " by ",
                     .description = "NTP slews of each offset at every strike point of each target.",
                     .size_doc = "The offsets to try, each under 128ms either way; negative slews go back. Or a "
                                 "signed range {\"from\": \"-128ms\", \"to\": \"128ms\"}, from below to: explored at "
                                 "every start, refined to 1 ms."},
    };

    static ClockStepFault read(std::string_view key, const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "server-1 pauses 40s": what it does, in words; `who` names the node it strikes.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
    static ClockStepFault explored(std::string_view key, std::string node, EventTrigger when,
                                   std::optional<Duration> size, const ExploreDetails& details);
};

}  // namespace locksim
