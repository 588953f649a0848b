// What protected the data, in one sentence per protection. The fencing checker explains
// the stale writes it refused; the other protections a resource gives are told here from
// what it had seen before: the charge an idempotency key already made, the row a unique
// key already held, the token a fenced row already carried.
#include <fmt/format.h>

#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"
#include "reports/figure/violation_story.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

bool same_row(const TraceEvent& a, const TraceEvent& b) {
    return a.integer("customer") == b.integer("customer") && a.text("period") == b.text("period");
}

// "the payment provider had seen key renewal-42-2026-10 at 34.796s (charge 2, from
// server-2): it returned charge 2 instead of a new charge"
std::string replay_reason(const Trace& trace, const Vocabulary& words, const TraceEvent& replayed) {
    return fmt::format("{}: it returned {} {} instead of a new {}", key_seen_before(trace, words, replayed),
                       words.effect, replayed.integer("charge"), words.effect);
}

// A write to a renewal row that changed nothing: whose write was there first.
std::string refused_write_reason(const Trace& trace, const Vocabulary& words, const TraceEvent& refused) {
    const bool insert = refused.text("status") == "claimed" && !refused.has("token");
    const TraceEvent* before = nullptr;
    for (std::size_t i = 0; i < refused.sequence; ++i) {
        const TraceEvent& event = trace.events()[i];
        if (event.kind != trace_kind::db_write || event.integer("rows") == 0 || !same_row(event, refused)) continue;
        if (insert && before != nullptr) break;  // the row's first insert is what the key kept
        if (!refused.has("token") || event.has("token")) before = &event;
    }
    if (before == nullptr) return "";
    const std::string writer = trace.node_name(before->node_ref("client"));
    if (insert)
        return fmt::format("duplicate key: {} had inserted the row of {} {} first, at {}", writer, words.item,
                           refused.integer("customer"), format_seconds(before->at));
    if (refused.has("token") && before->has("token") && refused.integer("token") > before->integer("token"))
        return fmt::format(
            "the row was already {} under token {}, by {} at {}: a claim-once fence takes only a row still due",
            before->text("status"), before->integer("token"), writer, format_seconds(before->at));
    if (refused.has("token"))
        return fmt::format("the row already carried token {}, written by {} at {}, and token {} is not above it",
                           before->integer("token"), writer, format_seconds(before->at), refused.integer("token"));
    return fmt::format("{} had already written the row at {}, so the conditional write changed nothing", writer,
                       format_seconds(before->at));
}

std::string protection_reason(const Trace& trace, const Vocabulary& words, const TraceEvent& event) {
    if (event.kind == trace_kind::provider_replayed) return replay_reason(trace, words, event);
    if (event.kind == trace_kind::db_write && event.integer("rows") == 0)
        return refused_write_reason(trace, words, event);
    if (event.kind == trace_kind::provider_refused)
        return fmt::format("token {} is below token {}, which the {} had already seen", event.integer("token"),
                           event.integer("highest"), words.provider);
    if (event.kind == trace_kind::provider_precondition_failed)
        return fmt::format("{} of {} {} changed since {} read it: {} wrote version {} over version {}", words.record,
                           words.item, event.integer("customer"), trace.node_name(event.node_ref("by")),
                           trace.node_name(event.node_ref("changed_by")), event.integer("version"),
                           event.integer("if_version"));
    return "";
}

}  // namespace

std::string key_seen_before(const Trace& trace, const Vocabulary& words, const TraceEvent& replayed) {
    const std::string_view key = replayed.text("key");
    for (std::size_t i = 0; i < replayed.sequence; ++i) {
        const TraceEvent& first = trace.events()[i];
        if (first.kind != trace_kind::provider_charged || !first.has("key") || first.text("key") != key) continue;
        return fmt::format("the {} had seen key {} at {} ({} {}, from {})", words.provider, key,
                           format_seconds(first.at), words.effect, first.integer("charge"),
                           trace.node_name(first.node_ref("by")));
    }
    return fmt::format("the {} had seen key {} before", words.provider, key);
}

void explain_protections(SequenceFigure& figure, const Trace& trace) {
    const Vocabulary words = vocabulary_of(trace);
    for (auto& step : figure.steps) {
        if (step.tone != EventTone::protection || !step.explanation.empty()) continue;
        if (step.sequence >= trace.events().size()) continue;
        step.explanation = protection_reason(trace, words, trace.events()[step.sequence]);
    }
}

}  // namespace locksim
