// The causes of lost work. An item never done: the last thing any server did about it, and
// what became of that server (a crash, a job that never ended), or, when no server got to
// it, how each server's job ended. A job that never finished: what it was waiting for. A
// lock left behind: how its holder stopped believing in it without the store letting go.
#include "reports/figure/loss_causes.hpp"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "checks/unanswered_request.hpp"
#include "models/item_ranges.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"
#include "reports/event_text.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

namespace kind = trace_kind;

// The first of a due run's items the provider never charged for its period.
std::optional<std::int64_t> first_undone(const TraceEvent& due, const Trace& trace) {
    if (!due.has("items")) return std::nullopt;
    std::set<std::int64_t> charged;
    for (const TraceEvent& event : trace.events())
        if (event.kind == kind::provider_charged && event.text("period") == due.text("period"))
            charged.insert(event.integer("customer"));
    for (const std::int64_t item : parse_item_ranges(due.text("items")).value_or(std::vector<std::int64_t>{}))
        if (!charged.contains(item)) return item;
    return std::nullopt;
}

// What became of `server` after `since`: its crash, or a job run that never ended.
std::string fate_of(NodeId server, Instant since, const Trace& trace) {
    for (const TraceEvent& event : trace.events()) {
        if (event.node != server || event.at < since) continue;
        if (event.kind == kind::node_crashed)
            return fmt::format(", and {} crashed at {}", trace.node_name(server), format_seconds(event.at));
        if (event.kind == kind::job_finished)
            return fmt::format(", and {}'s job ended at {}: {}", trace.node_name(server), format_seconds(event.at),
                               event.text("outcome"));
    }
    return fmt::format(", and {}'s job never finished", trace.node_name(server));
}

std::optional<std::string> item_cause(const TraceEvent& due, const Trace& trace) {
    const Vocabulary words = vocabulary_of(trace);
    const auto item = first_undone(due, trace);
    if (item) {
        // The last thing done to it, not another server passing it by: a skip says only
        // that someone else had it. A read at the database does nothing to it and names no
        // server (a statement the client gave up on can land after its job has ended).
        const TraceEvent* last = nullptr;
        const TraceEvent* last_skip = nullptr;
        for (const TraceEvent& event : trace.events()) {
            if (!event.has("customer") || event.integer("customer") != *item || !event.node.valid()) continue;
            if (event.kind.name().starts_with("message.") || event.kind == kind::db_read) continue;
            if (event.has("period") && event.text("period") != due.text("period")) continue;
            (event.kind == kind::job_customer_skipped ? last_skip : last) = &event;
        }
        if (last == nullptr) last = last_skip;
        if (last != nullptr) {
            const auto text = describe_event(*last, trace);
            const NodeId by = last->has("client") ? last->node_ref("client") : last->node;
            return fmt::format(" because the last step on {} {} was at {} ({}: {}){}", words.item, *item,
                               format_seconds(last->at), trace.node_name(last->node),
                               text ? text->text : std::string(last->kind.name()), fate_of(by, last->at, trace));
        }
    }
    // No server got to it: say how every job run ended, crashes first.
    std::vector<std::string> endings;
    for (const TraceEvent& event : trace.events())
        if (event.kind == kind::node_crashed && event.at >= due.at)
            endings.push_back(fmt::format("{} crashed at {}", trace.node_name(event.node), format_seconds(event.at)));
    if (endings.empty())
        for (const TraceEvent& event : trace.events())
            if (event.kind == kind::job_finished)
                endings.push_back(fmt::format("{}'s job ended at {} ({})", trace.node_name(event.node),
                                              format_seconds(event.at), event.text("outcome")));
    if (endings.empty()) return " because no server's job got to them before the run ended";
    const std::string who = item ? fmt::format("{} {}", words.item, *item) : std::string("them");
    return fmt::format(" because no server got to {}: {}", who, fmt::join(endings, "; "));
}

// A job run that never ended: the reply it waited for, the pause it was in, or the lock.
std::string unfinished_cause(const TraceEvent& started, const Trace& trace) {
    const TraceEvent* last = nullptr;  // its server's last step of its own
    std::optional<Instant> frozen;
    const TraceEvent* refused = nullptr;
    for (const TraceEvent& event : trace.events()) {
        if (event.sequence <= started.sequence) continue;
        if (event.kind == kind::lock_refused && event.node_ref("client") == started.node) refused = &event;
        if (event.node != started.node) continue;
        if (event.kind == kind::node_paused) frozen = event.at;
        if (event.kind == kind::node_resumed) frozen.reset();
        if (!event.kind.name().starts_with("message.") && event.kind != kind::belief_checked) last = &event;
    }
    const std::string& server = trace.node_name(started.node);
    if (frozen) return fmt::format(" because {} was frozen from {} to the end", server, format_seconds(*frozen));
    if (const TraceEvent* request = unanswered_request(trace, started.node, started.at))
        return fmt::format(" because it has waited since {} for {}'s reply to '{}'", format_seconds(request->at),
                           trace.node_name(request->node_ref("to")), request->text("label"));
    if (refused != nullptr && (last == nullptr || refused->at >= last->at))
        return fmt::format(" because {} was still waiting for the lock: {} last refused it at {}", server,
                           trace.node_name(refused->node), format_seconds(refused->at));
    if (last != nullptr) {
        const auto text = describe_event(*last, trace);
        return fmt::format(" because nothing happened on {} after {} ({})", server, format_seconds(last->at),
                           text ? text->text : std::string(last->kind.name()));
    }
    return fmt::format(" because nothing happened on {} after it started at {}", server, format_seconds(started.at));
}

// A lock left behind: how its holder let go of it without the store knowing.
std::string leak_cause(const TraceEvent& granted, const Trace& trace) {
    const NodeId holder = granted.node_ref("holder");
    const TraceEvent* let_go = nullptr;
    for (const TraceEvent& event : trace.events()) {
        if (event.sequence <= granted.sequence || event.node != holder) continue;
        if (event.kind == kind::node_crashed || event.kind == kind::belief_ended) let_go = &event;
    }
    const std::string& name = trace.node_name(holder);
    if (let_go == nullptr) return fmt::format(" because {} never released it", name);
    if (let_go->kind == kind::node_crashed)
        return fmt::format(
            " because {} crashed at {} without releasing it, and the store keeps a session's lock "
            "until the session ends",
            name, format_seconds(let_go->at));
    return fmt::format(" because {} stopped believing it held it at {} ({}) and no release reached the store for it",
                       name, format_seconds(let_go->at), let_go->text("reason"));
}

}  // namespace

std::optional<std::string> cause_of_loss(Metric metric, const TraceEvent& flagged, const Trace& trace) {
    switch (metric) {
        case Metric::items_not_done: return item_cause(flagged, trace);
        case Metric::unfinished_work:
            if (flagged.kind == kind::job_charge_timed_out)
                return fmt::format(
                    " because {}'s request got no reply by {} and the {} never saw it: lost on the way "
                    "or still travelling, it may yet charge",
                    trace.node_name(flagged.node), format_seconds(flagged.at), vocabulary_of(trace).provider);
            return unfinished_cause(flagged, trace);
        case Metric::locks_leaked: return leak_cause(flagged, trace);
        default: return std::nullopt;
    }
}

}  // namespace locksim
