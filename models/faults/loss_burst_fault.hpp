#pragma once
// A loss burst: messages between two nodes sent within `length` of `at` are lost at
// `loss` odds (a flapping port, a queue overflowing). Both ways unless one_way.
//   {"loss_burst": ["server-1", "lock-store"], "at": "5s", "for": "10s", "loss": "1/2"}
#include <optional>
#include <string>
#include <string_view>

#include "models/faults/drawn_amounts.hpp"
#include "models/faults/event_trigger.hpp"
#include "models/faults/explore_shape.hpp"
#include "models/faults/fault_reader.hpp"
#include "models/faults/fault_world.hpp"
#include "models/faults/fault_writer.hpp"
#include "sim/network.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

struct LossBurstFault {
    std::string from;
    std::string to;
    Instant at;
    Duration length;
    Odds loss{1, 1};
    bool one_way = false;
    std::optional<EventTrigger> when;

    static constexpr FaultMember members[] = {
        {.name = "loss_burst",
         .type = MemberType::link,
         .required = true,
         .drawn_required = true,
         .doc = "The link [from, to], two different nodes: messages sent on it during the window are lost at the "
                "given odds (a flapping port, a queue overflowing)."},
        {.name = "for",
         .type = MemberType::amount,
         .required = true,
         .drawn_required = true,
         .doc = "How long the burst lasts, a duration.",
         .drawn_doc = "Each burst's length: a duration or a distribution."},
        {.name = "loss",
         .type = MemberType::odds,
         .doc = "The odds of losing each message sent in the window, such as \"1/2\". Default \"1/1\": every one."},
        {.name = "one_way",
         .type = MemberType::flag,
         .doc = "true: only messages from the first node to the second are lost. Default false."},
    };
    static constexpr FaultEntry entries[] = {
        {.key = "loss_burst",
         .example = "{\"loss_burst\": [\"server-1\", \"lock-store\"], \"at\": \"8s\", \"for\": \"5s\", \"loss\": "
                    "\"1/2\"}: a loss burst.",
         .generators = "Random loss bursts on each link listed.",
         .members = members}};
    static constexpr const KindSpec* shown_by[] = {&trace_kind::link_lossy};
    static constexpr std::string_view amounts[] = {"for"};  // drawn in a generator, in draw() order
    // Explored as the messages the target and one other node send each other (only the
    // target's if one_way) lost at `loss` odds from a start, for a length.
    static constexpr ExploreShape explore[] = {ExploreShape{.key = "loss_burst",
                                                            .size_field = "for",
                                                            .has_end = true,
                                                            .strikes_links = true,
                                                            .other_side_field = "with",
                                                            .one_other_node = true,
                                                            .may_be_one_way = true,
                                                            .odds_field = "loss",
                                                            .name = "loss burst",
                                                            .listing = "loss bursts lasting",
                                                            .size_joint = " for ",
                                                            .description = "Loss bursts on the link between each "
                                                                           "target and the node of with: what either "
                                                                           "sends the other (only the target, with "
                                                                           "one_way) until the burst ends is lost at "
                                                                           "the odds of loss, at every strike point "
                                                                           "of each target.",
                                                            .size_doc = "How long the burst lasts. A list tries "
                                                                        "each; a range {\"from\", \"to\"} is "
                                                                        "explored exactly.",
                                                            .other_side_doc = "The one node at the other end of the "
                                                                              "link: its name, or a list of one."}};

    static LossBurstFault read(std::string_view key, const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "server-1 pauses 40s": what it does, in words; `who` names the node it strikes.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
    static LossBurstFault explored(std::string_view key, std::string node, EventTrigger when,
                                   std::optional<Duration> size, const ExploreDetails& details);
};

}  // namespace locksim
