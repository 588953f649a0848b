#include "reports/event_text.hpp"

#include <fmt/format.h>

#include "checks/suppressed_effects.hpp"
#include "models/effect_steps.hpp"
#include "models/faults/clock_events.hpp"
#include "models/item_ranges.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"
#include "reports/partition_cut.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// "29.998s left by its clock", or that no deadline on its clock will end it (a database
// session; a Kubernetes leader, which leads until a renewal round fails).
std::string time_left(const TraceEvent& event) {
    const Instant until = event.instant("believed_until");
    if (until == never) return "no deadline on its clock";
    if (event.has("clock"))
        return fmt::format("{} left by its wall clock", format_duration_rounded(until - event.wall));
    return fmt::format("{} left by its clock", format_duration_rounded(until - event.monotonic));
}

std::string lease_identity(const TraceEvent& event) {
    if (event.has("token")) return fmt::format("token {}", event.integer("token"));
    return fmt::format("value {}", event.text("value"));
}

// What an event's words draw on besides the event: the nodes' names and the scenario's
// words for what the job does.
struct Context {
    const Trace& trace;
    Vocabulary words;

    const std::string& name(NodeId id) const { return trace.node_name(id); }
    // Step `step` of the effect by its name, as the first job.due of the trace lists them.
    std::string step(std::int64_t step) const {
        for (const auto& event : trace.events())
            if (event.kind == trace_kind::job_due && event.has("step_names"))
                return step_name(step_names_of(event.text("step_names")), step);
        return step_name({}, step);
    }
    // The model writes the renewals job's status words; the scenario may name its effect otherwise.
    std::string status(std::string_view text) const { return text == "charged" ? words.effected() : std::string(text); }
};

using Described = std::optional<EventText>;

// "42" is one item; "41-43" and "41,50" are several.
bool one_item(std::string_view ranges) {
    const auto items = parse_item_ranges(ranges);
    return items && items->size() == 1;
}

// The job on its servers: starting, preparing, charging, finishing.
Described job_event(const TraceEvent& event, const Context& context) {
    namespace kind = trace_kind;
    const std::string_view k = event.kind;
    const Vocabulary& words = context.words;
    if (k == kind::job_started) return EventText{fmt::format("job {} starts", event.text("job"))};
    if (k == kind::job_due)
        return EventText{event.has("items")
                             ? fmt::format("job {} due for {}: {} {}", event.text("job"), event.text("period"),
                                           one_item(event.text("items")) ? words.item : words.items(),
                                           event.text("items"))
                             : fmt::format("job {} due: the index for {}", event.text("job"), event.text("period"))};
    if (k == kind::job_campaigning) return EventText{fmt::format("stands for leader, to run {}", event.text("job"))};
    if (k == kind::job_rebuilding)
        return EventText{fmt::format("starts building the index for {}", event.text("period"))};
    if (k == kind::index_checked)
        return EventText{event.flag("built") ? fmt::format("index for {} already built", event.text("period"))
                                             : fmt::format("no index for {} yet", event.text("period"))};
    if (k == kind::index_built)
        return EventText{fmt::format("index for {} built by {} ({} of processor time)", event.text("period"),
                                     context.name(event.node_ref("client")),
                                     format_duration_rounded(event.duration("cpu")))};
    if (k == kind::job_finished)
        return EventText{fmt::format("job {} ends: {}", event.text("job"), event.text("outcome"))};
    if (k == kind::job_preparing)
        return EventText{fmt::format("prepares {} {}'s {}", words.item, event.integer("customer"), words.record)};
    if (k == kind::job_charge_timed_out)
        return EventText{fmt::format(
            "no reply in {} to {} {} {} (attempt {}{}): {}", format_duration_rounded(event.duration("timeout")),
            words.effect, words.item, event.integer("customer"), event.integer("attempt"),
            event.has("reset") ? ", the connection was reset" : "",
            event.flag("retrying") ? std::string("sends it again") : "gives up; it may have been " + words.effected())};
    if (k == kind::job_error) {
        const std::string_view then = event.text("then");
        std::string follows = "the run fails";
        if (then == "skip") follows = fmt::format("skips {} {}", words.item, event.integer("customer"));
        if (then == "retry")
            follows = fmt::format("the run fails; the job runs again in {} (retry {})",
                                  format_duration_rounded(event.duration("retry_in")), event.integer("retry"));
        if (then == "next tick") follows = "the tick ends; the next reads what is still pending";
        return EventText{fmt::format("error: {}; {}", event.text("error"), follows), EventTone::fault};
    }
    if (k == kind::job_customer_skipped)
        return EventText{fmt::format(
            "skips {} {}: {}", words.item, event.integer("customer"),
            event.text("reason") == "already charged" ? "already " + words.effected() : event.text("reason"))};
    return std::nullopt;
}

// The network's faults: lost messages, partitions, links held back or lossy.
Described network_event(const TraceEvent& event, const Context& context) {
    namespace kind = trace_kind;
    const std::string_view k = event.kind;
    if (k == kind::message_lost)
        return EventText{fmt::format("a message to {} is lost{}", context.name(event.node_ref("to")),
                                     event.flag("cut") ? " (the link is cut)" : ""),
                         EventTone::fault};
    if (k == kind::message_stalled)
        return EventText{fmt::format("a message to {} waits for its stream to retransmit{}",
                                     context.name(event.node_ref("to")), event.flag("cut") ? " (the link is cut)" : ""),
                         EventTone::fault};
    if (k == kind::connection_reset)
        return EventText{
            fmt::format("its stream to {} gives up after {} and is reset: {} message{} lost",
                        context.name(event.node_ref("to")), format_duration_rounded(event.duration("after")),
                        event.integer("messages"), event.integer("messages") == 1 ? "" : "s"),
            EventTone::fault};
    if (k == kind::connection_refused) {
        const std::int64_t requests = event.integer("requests");
        return EventText{
            fmt::format("its connection to {} is reset: that process is down, and {} request{} on it fail{}",
                        context.name(event.node_ref("to")), requests, requests == 1 ? "" : "s",
                        requests == 1 ? "s" : ""),
            EventTone::fault};
    }
    if (k == kind::connection_closed) {
        const std::int64_t orphaned = event.integer("orphaned");
        return EventText{fmt::format("closes its connection to {}{}", context.name(event.node_ref("to")),
                                     orphaned == 0 ? std::string()
                                                   : fmt::format(" with {} message{} still in flight", orphaned,
                                                                 orphaned == 1 ? "" : "s")),
                         EventTone::normal};
    }
    if (k == kind::network_partitioned || k == kind::network_healed) {
        const auto cut = partition_cut(event);
        const bool healed = k == kind::network_healed;
        std::string text = healed ? "network healed" : "network partition";
        if (cut) text += ": " + (healed ? cut->healed_words() : cut->words());
        // The groups say more than the cut only when the network is in pieces.
        const std::string_view groups = event.text("groups");
        if (!cut || groups.find(" | ") != std::string_view::npos) text += fmt::format("; groups now {}", groups);
        return EventText{std::move(text), EventTone::fault};
    }
    if (k == kind::link_held)
        return EventText{
            fmt::format("messages to {} held back {} more until {}", context.name(event.node_ref("to")),
                        format_duration_rounded(event.duration("extra")), format_seconds(event.instant("until"))),
            EventTone::fault};
    if (k == kind::link_holding)
        return EventText{fmt::format("the next message to {} held in flight until {}",
                                     context.name(event.node_ref("to")), format_seconds(event.instant("until"))),
                         EventTone::fault};
    if (k == kind::link_lossy)
        return EventText{fmt::format("messages to {} lost at odds {} until {}", context.name(event.node_ref("to")),
                                     event.text("loss"), format_seconds(event.instant("until"))),
                         EventTone::fault};
    return std::nullopt;
}

// The holder's belief: what it thinks it holds, by its own clock.
Described belief_event(const TraceEvent& event, const Context&) {
    namespace kind = trace_kind;
    const std::string_view k = event.kind;
    if (k == kind::belief_acquired)
        return EventText{fmt::format("holds {} ({}), {}", event.text("key"), lease_identity(event), time_left(event))};
    if (k == kind::belief_checked) return EventText{fmt::format("checks its lease: {}", time_left(event))};
    if (k == kind::belief_extended) return EventText{fmt::format("renewed: {}", time_left(event))};
    if (k == kind::renewal_stopped)
        return EventText{fmt::format("stops renewing {}: {}; it still believes it holds the lock", event.text("key"),
                                     event.text("reason")),
                         EventTone::fault};
    if (k == kind::belief_ended) {
        // "released" is the holder letting go: whether the store heard it, the release's own
        // arrow says (a lost one ends in a cross).
        const std::string_view reason = event.text("reason");
        return EventText{reason == "released" ? std::string("stops holding: lets the lock go")
                                              : fmt::format("stops holding: {}", reason)};
    }
    return std::nullopt;
}

// The lock at the store: granted, renewed, expired, released or deleted.
Described lock_event(const TraceEvent& event, const Context& context) {
    namespace kind = trace_kind;
    const std::string_view k = event.kind;
    if (k == kind::lock_granted) {
        const std::string ttl =
            event.has("ttl") ? fmt::format(", ttl {}", format_duration_rounded(event.duration("ttl"))) : "";
        return EventText{fmt::format("grants {} to {} ({}{})", event.text("key"),
                                     context.name(event.node_ref("holder")), lease_identity(event), ttl)};
    }
    if (k == kind::lock_renewed)
        return EventText{fmt::format("extends {}'s lease", context.name(event.node_ref("holder")))};
    if (k == kind::lock_expired) {
        if (!event.has("expires_at"))
            return EventText{fmt::format("{}'s lock ends with its session ({})", context.name(event.node_ref("holder")),
                                         lease_identity(event))};
        return EventText{
            fmt::format("{}'s lease expires ({})", context.name(event.node_ref("holder")), lease_identity(event))};
    }
    if (k == kind::lock_released) {
        const NodeId holder = event.node_ref("holder");
        const NodeId by = event.node_ref("by");
        if (holder == by) return EventText{fmt::format("{} releases {}", context.name(by), event.text("key"))};
        return EventText{fmt::format("{} deletes {}'s lock", context.name(by), context.name(holder)),
                         EventTone::violation};
    }
    return std::nullopt;
}

// The database's writes: a row inserted, marked, or refused, or undone by a rollback.
Described database_event(const TraceEvent& event, const Context& context) {
    const Vocabulary& words = context.words;
    if (event.kind == trace_kind::db_rolled_back && event.has("customer"))
        return EventText{fmt::format("rolls back {}'s write: {} {} is {} again (session {} ended before COMMIT)",
                                     context.name(event.node_ref("client")), words.item, event.integer("customer"),
                                     context.status(event.text("status")), event.integer("session"))};
    if (event.kind == trace_kind::db_rolled_back)
        return EventText{fmt::format("rolls back {}'s index build for {} (session {} ended before COMMIT)",
                                     context.name(event.node_ref("client")), event.text("period"),
                                     event.integer("session"))};
    if (event.kind != trace_kind::db_write) return std::nullopt;
    const auto customer = event.integer("customer");
    const bool changed = event.integer("rows") > 0;
    const std::string token = event.has("token") ? fmt::format(" with token {}", event.integer("token")) : "";
    // A claim without a token is an INSERT into a table with a unique key.
    const bool insert = event.text("status") == "claimed" && !event.has("token");
    if (insert && !changed)
        return EventText{fmt::format("refuses a second row for {} {} from {} (duplicate key)", words.item, customer,
                                     context.name(event.node_ref("client"))),
                         EventTone::protection};
    if (insert)
        return EventText{fmt::format("inserts the row of {} {} for {}", words.item, customer,
                                     context.name(event.node_ref("client")))};
    if (!changed)
        return EventText{fmt::format("refuses to mark {} {} {}{} (0 rows)", words.item, customer,
                                     context.status(event.text("status")), token),
                         EventTone::protection};
    return EventText{fmt::format("{} {} {}{}", words.item, customer, context.status(event.text("status")), token)};
}

// The provider's side effects: charged, refused, or a key seen before.
Described provider_event(const TraceEvent& event, const Context& context) {
    namespace kind = trace_kind;
    const std::string_view k = event.kind;
    const Vocabulary& words = context.words;
    if (k == kind::provider_charged)
        return EventText{fmt::format("{} {} {}{} ({} {}{})", words.effects(), words.item, event.integer("customer"),
                                     event.has("step") ? ": " + context.step(event.integer("step")) : "", words.effect,
                                     event.integer("charge"),
                                     event.has("token") ? fmt::format(", token {}", event.integer("token")) : "")};
    if (k == kind::provider_refused)
        return EventText{fmt::format("refuses to {} {} {} with token {}", words.effect, words.item,
                                     event.integer("customer"), event.integer("token")),
                         EventTone::protection};
    if (k == kind::provider_precondition_failed)
        return EventText{fmt::format("refuses to {} {} {} on version {} (If-Match)", words.effect, words.item,
                                     event.integer("customer"), event.integer("if_version")),
                         EventTone::protection};
    if (k == kind::provider_read)
        return EventText{fmt::format("{} {}'s {} is at version {}", words.item, event.integer("customer"), words.record,
                                     event.integer("version"))};
    if (k == kind::provider_replayed && replays_another_effect(event))
        return EventText{fmt::format("key {} seen before: returns {} {}, made {}", event.text("key"), words.effect,
                                     event.integer("charge"), returned_effect_for(event, words))};
    if (k == kind::provider_replayed)
        return EventText{fmt::format("key {} seen before: returns {} {}, no new {}", event.text("key"), words.effect,
                                     event.integer("charge"), words.effect),
                         EventTone::protection};
    return std::nullopt;
}

// A node as a process: paused, crashed, restarted, its wall clock moved.
Described node_event(const TraceEvent& event, const Context&) {
    namespace kind = trace_kind;
    const std::string_view k = event.kind;
    if (k == kind::node_paused)
        return EventText{
            fmt::format("{} pause: frozen for {}", event.text("cause"), format_duration_rounded(event.duration("for"))),
            EventTone::fault};
    if (k == kind::node_resumed)
        return EventText{fmt::format("resumes after {}, unaware that time passed",
                                     format_duration_rounded(event.duration("paused_for"))),
                         EventTone::fault};
    if (k == kind::node_crashed) return EventText{"crashes: its processes and memory are gone", EventTone::fault};
    if (k == kind::node_restarted)
        return EventText{fmt::format("restarts after {} down", format_duration_rounded(event.duration("down_for"))),
                         EventTone::fault};
    if (changes_wall_clock(event)) return EventText{wall_clock_change_text(event), EventTone::fault};
    return std::nullopt;
}

// The store as a replicated service: what it loads on restart, sessions that end, watches,
// leaders and failovers.
Described store_event(const TraceEvent& event, const Context& context) {
    namespace kind = trace_kind;
    const std::string_view k = event.kind;
    if (k == kind::store_loaded) {
        const auto keys = event.integer("keys");
        return EventText{keys == 0 ? std::string("loads nothing from disk: every lock it held is forgotten")
                                   : fmt::format("loads {} key{} from disk", keys, keys == 1 ? "" : "s")};
    }
    if (k == kind::db_session_ended)
        return EventText{fmt::format("ends {}'s session ({}): its locks go with it",
                                     context.name(event.node_ref("client")), event.text("reason")),
                         EventTone::fault};
    if (k == kind::pooler_closed)
        return EventText{fmt::format("closes its connection of server session {} ({}): the database ends that session",
                                     event.integer("session"), event.text("reason")),
                         EventTone::fault};
    if (k == kind::watch_fired)
        return EventText{
            fmt::format("{} deleted: wakes {}", event.text("key"), context.name(event.node_ref("client")))};
    if (k == kind::session_expired)
        return EventText{
            fmt::format("session 0x{:x} expired: no heartbeat within its timeout", event.integer("session")),
            EventTone::fault};
    if (k == kind::consensus_leader)
        return EventText{fmt::format("takes over as leader (term {}) from {}", event.integer("term"),
                                     context.name(event.node_ref("previous"))),
                         EventTone::fault};
    if (k == kind::store_failover)
        return EventText{fmt::format("promotes {} to primary in place of {} (replication offset {})",
                                     context.name(event.node_ref("to")), context.name(event.node_ref("from")),
                                     event.integer("offset")),
                         EventTone::fault};
    return std::nullopt;
}

}  // namespace

EventTone tone_of(const FlaggedEvent& flag) {
    if (flag.violation()) return EventTone::violation;
    return metric_spec(flag.metric).protection ? EventTone::protection : EventTone::fault;
}

std::optional<EventText> describe_event(const TraceEvent& event, const Trace& trace) {
    const Context context{trace, vocabulary_of(trace)};
    // Each kind belongs to one family; a family that does not know it says nothing.
    for (const auto family :
         {job_event, network_event, belief_event, lock_event, database_event, provider_event, node_event, store_event})
        if (auto described = family(event, context)) return described;
    return std::nullopt;
}

}  // namespace locksim
