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

    static constexpr std::string_view keys[] = {"pause"};
    static constexpr const KindSpec* shown_by[] = {&trace_kind::node_paused};
    static constexpr std::string_view amounts[] = {"for"};  // drawn in a generator, in draw() order
    static constexpr std::optional<ExploreShape> explore = ExploreShape{.key = "pause",
                                                                        .size_field = "for",
                                                                        .has_cause = true,
                                                                        .has_end = true,
                                                                        .name = "pause",
                                                                        .listing = "pauses of",
                                                                        .size_joint = " "};

    static PauseFault read(std::string_view key, const FaultReader& reader);
    // "kind": gc (the default), sigstop or swap; `fail` names the field's place.
    static std::string read_cause(const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "server-1 pauses 40s": what it does, in words; `who` names the node it strikes.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
    static PauseFault explored(std::string node, EventTrigger when, std::optional<Duration> size,
                               const ExploreDetails& details);
};

}  // namespace locksim
