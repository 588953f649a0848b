#pragma once
// A delay spike: messages between two nodes sent within `length` of `at` are held back
// by `extra` (a request stuck in a queue; a replication stream falling behind). Both
// ways unless one_way.
//   {"delay_spike": ["server-1", "lock-store"], "at": "5s", "for": "2s", "extra": "40s"}
#include <optional>
#include <span>
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

struct DelaySpikeFault {
    std::string from;
    std::string to;
    Instant at;
    Duration length;
    Duration extra;
    bool one_way = false;
    std::optional<EventTrigger> when;

    static constexpr FaultMember members[] = {
        {.name = "delay_spike",
         .type = MemberType::link,
         .required = true,
         .drawn_required = true,
         .doc = "The link [from, to], two different nodes: messages sent on it during the window are held back extra "
                "more (a request stuck in a queue)."},
        {.name = "for",
         .type = MemberType::amount,
         .required = true,
         .drawn_required = true,
         .doc = "How long the window lasts, a duration.",
         .drawn_doc = "Each spike's window: a duration or a distribution."},
        {.name = "extra",
         .type = MemberType::amount,
         .required = true,
         .drawn_required = true,
         .doc = "The extra delay for messages sent in the window, a duration.",
         .drawn_doc = "Each spike's extra delay: a duration or a distribution (drawn after the window)."},
        {.name = "one_way",
         .type = MemberType::flag,
         .doc = "true: only messages from the first node to the second are held back. Default false."},
    };
    static constexpr FaultEntry entries[] = {
        {.key = "delay_spike",
         .example = "{\"delay_spike\": [\"server-1\", \"payment-provider\"], \"at\": \"8s\", \"for\": \"60s\", "
                    "\"extra\": \"90s\"}: a delay spike.",
         .generators = "Random delay spikes on each link listed.",
         .members = members}};
    static constexpr const KindSpec* shown_by[] = {&trace_kind::link_held};
    static constexpr std::string_view amounts[] = {"for", "extra"};  // drawn in a generator, in draw() order
    static constexpr std::span<const ExploreShape> explore{};

    static DelaySpikeFault read(std::string_view key, const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "server-1 pauses 40s": what it does, in words; `who` names the node it strikes.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
};

}  // namespace locksim
