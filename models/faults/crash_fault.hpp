#pragma once
// A crash: the node's process dies (or its machine loses power) and, if the fault says
// so, comes back after a while with only what it persisted.
//   {"crash": "redis", "at": "10s", "restart_after": "5s", "kind": "machine"}
#include <optional>
#include <string>
#include <string_view>

#include "models/faults/drawn_amounts.hpp"
#include "models/faults/event_trigger.hpp"
#include "models/faults/explore_shape.hpp"
#include "models/faults/fault_reader.hpp"
#include "models/faults/fault_world.hpp"
#include "models/faults/fault_writer.hpp"
#include "sim/crash_kind.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

struct CrashFault {
    std::string node;
    Instant at;                             // true time
    std::optional<Duration> restart_after;  // none: it stays down
    std::optional<EventTrigger> when;
    CrashKind kind = CrashKind::process;

    static constexpr std::string_view kinds[] = {"process", "machine"};
    static constexpr FaultMember members[] = {
        {.name = "crash",
         .type = MemberType::target,
         .required = true,
         .drawn_required = true,
         .doc = "The node that crashes: its processes end, its memory is lost, messages to it are lost. A crashed "
                "server's job is over."},
        {.name = "kind",
         .type = MemberType::choice,
         .choices = kinds,
         .doc = "What the crash takes: \"process\" (default: the process dies, the kernel keeps what was written to "
                "it: Redis's append-only file survives; the database sees the client's socket close at once) or "
                "\"machine\" (power lost: writes not yet synced are gone; TCP peers hear nothing until keepalive "
                "gives up)."},
        {.name = "restart_after",
         .type = MemberType::amount,
         .doc = "Downtime before the node restarts and runs start-up with what it persisted, a duration. Default: it "
                "stays down.",
         .drawn_doc = "Each crash's downtime: a duration or a distribution such as {\"exponential\": \"10s\"}. "
                      "Default: the node stays down."},
    };
    static constexpr FaultEntry entries[] = {
        {.key = "crash",
         .example = "{\"crash\": \"redis-3\", \"at\": \"2s\", \"restart_after\": \"1s\"}: a crash, and maybe a "
                    "restart.",
         .generators = "Random crashes of each target.",
         .members = members}};
    static constexpr const KindSpec* shown_by[] = {&trace_kind::node_crashed};
    static constexpr std::string_view amounts[] = {"restart_after"};  // drawn in a generator, in draw() order
    static constexpr ExploreShape explore[] = {ExploreShape{
        .key = "crash",
        .size_field = "restart_after",
        .size_may_be_null = true,
        .no_end = "stays down",
        .no_end_gerund = "staying down",
        .has_end = true,
        .resets_requests = true,
        .name = "crash",
        .listing = "crashes, restarting after",
        .size_joint = ", back after ",
        .description = "Crashes at every strike point of each target.",
        .size_doc = "How long until the node restarts; null: it stays down. A list tries each; a range {\"from\", "
                    "\"to\"} is explored exactly. Default: it stays down."}};

    static CrashFault read(std::string_view key, const FaultReader& reader);
    void write(FaultWriter& writer) const;
    // "server-1 pauses 40s": what it does, in words; `who` names the node it strikes.
    std::string words(std::string_view who) const;
    void draw(const DrawnAmounts& amounts, RandomStream& random);
    void strike(FaultWorld& world, NodeId trigger) const;
    static CrashFault explored(std::string_view key, std::string node, EventTrigger when, std::optional<Duration> size,
                               const ExploreDetails& details);
};

}  // namespace locksim
