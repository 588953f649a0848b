#pragma once
// A message held in flight: the first message one node sends another from `at` on lands
// no sooner than `for` after `at` (a packet stuck in a retransmission queue, a request
// parked behind a slow proxy). The connection keeps its order, so what is sent behind it
// on the same direction lands no sooner either. A message that would land later anyway
// lands when it would have.
//   {"hold_message": ["server-1", "lock-store"], "at": "5s", "for": "40s"}
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

struct MessageHoldFault {
    std::string from;
    std::string to;
    Instant at;
    Duration length;  // from `at` to the earliest the message may land
    std::optional<EventTrigger> when;

    static constexpr FaultMember members[] = {
        {.name = "hold_message",
         .type = MemberType::link,
         .required = true,
         .drawn_required = true,
         .doc = "The link [from, to], two different nodes: the first message from sends to on it from at on is "
                "held in flight, and what follows it on that direction waits behind it."},
        {.name = "for",
         .type = MemberType::amount,
         .required = true,
         .drawn_required = true,
         .doc = "How long after at the held message lands at the earliest, a duration: it lands then, or when it "
                "would have if that is later.",
         .drawn_doc = "Each hold's length: a duration or a distribution."},
    };
    static constexpr FaultEntry entries[] = {
        {.key = "hold_message",
         .example = "{\"hold_message\": [\"server-1\", \"lock-store\"], \"at\": \"8s\", \"for\": \"40s\"}: one "
                    "message held in flight.",
         .generators = "Random messages held in flight on each link listed.",
         .members = members}};
    static constexpr const KindSpec* shown_by[] = {&trace_kind::link_holding};
    static constexpr std::string_view amounts[] = {"for"};  // drawn in a generator, in draw() order
    // Explored as the first message the target sends the node of "with" from a start, held
    // in flight until an end: while it is held the receiver hears nothing more on that
    // direction, so the world runs the same whatever the end will be.
    static constexpr ExploreShape explore[] = {ExploreShape{
        .key = "hold_message",
        .size_field = "for",
        .has_end = true,
        .strikes_links = true,
        .other_side_field = "with",
        .one_other_node = true,
        .name = "held message",
        .listing = "messages held for",
        .size_joint = " held for ",
        .description = "The first message each target sends the node of with from every strike point of the "
                       "target, held in flight until an end (what follows it on that direction waits behind it).",
        .size_doc = "How long after the strike the held message lands at the earliest. A list tries "
                    "each; a range {\"from\", \"to\"} is explored exactly.",
        .other_side_doc = "The one node the message goes to: its name, or a list of one."}};

    static MessageHoldFault read(std::string_view key, const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "the first message server-1 sends lock-store is held in flight 40s": what it does, in
    // words.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
    static MessageHoldFault explored(std::string_view key, std::string node, EventTrigger when,
                                     std::optional<Duration> size, const ExploreDetails& details);
};

}  // namespace locksim
