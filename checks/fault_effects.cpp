#include "checks/fault_effects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <optional>
#include <string_view>

#include "checks/fault_strikes.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

// In a design without a lock nobody ever believes it holds one: a server at work is what a
// fault can hurt there.
bool lockless(const Trace& trace) {
    return std::none_of(trace.events().begin(), trace.events().end(),
                        [](const TraceEvent& e) { return e.kind == trace_kind::belief_acquired; });
}

// The strikes of each fault, with what each struck node was doing at that moment.
Strikes strikes_in(const Trace& trace) {
    StrikeReader reader(lockless(trace));
    for (const auto& event : trace.events()) reader.read(event);
    return reader.finish();
}

// The kinds that change what a run comes to. Left out: refusals, renewals, lease checks,
// wake-ups, reads and messages, whose number any shift in timing changes, and the
// faults' own events.
constexpr std::array<std::string_view, 23> consequential_kinds{
    trace_kind::lock_granted.name,     trace_kind::lock_released.name,
    trace_kind::lock_expired.name,     trace_kind::store_failover.name,
    trace_kind::consensus_leader.name, trace_kind::session_expired.name,
    trace_kind::db_session_ended.name, trace_kind::store_loaded.name,
    trace_kind::belief_acquired.name,  trace_kind::belief_ended.name,
    trace_kind::job_started.name,      trace_kind::job_campaigning.name,
    trace_kind::job_rebuilding.name,   trace_kind::job_customer_skipped.name,
    trace_kind::job_preparing.name,    trace_kind::job_finished.name,
    trace_kind::db_write.name,         trace_kind::index_built.name,
    trace_kind::provider_charged.name, trace_kind::provider_replayed.name,
    trace_kind::provider_refused.name, trace_kind::provider_precondition_failed.name,
    trace_kind::db_rolled_back.name,
};

bool consequential(std::string_view kind) {
    for (const auto k : consequential_kinds)
        if (k == kind) return true;
    return false;
}

// Fields that name or count what happened; times, durations, random lock values, session
// ids and replication offsets shift with timing alone.
bool identifying(const Field& field) {
    if (field.key == "value" || field.key == "session" || field.key == "offset" || field.key == "session_id")
        return false;
    return !std::holds_alternative<Duration>(field.value) && !std::holds_alternative<Instant>(field.value);
}

std::string field_text(const FieldView& value) {
    if (const auto* n = std::get_if<std::int64_t>(&value)) return fmt::format("{}", *n);
    if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    if (const auto* s = std::get_if<std::string_view>(&value)) return std::string(*s);
    if (const auto* id = std::get_if<NodeId>(&value)) return fmt::format("#{}", id->index);
    return "";
}

// Per node, its consequential events as text, in trace order.
std::vector<std::vector<std::string>> stories(const Trace& trace) {
    std::vector<std::vector<std::string>> by_node(trace.node_names().size() + 1);
    for (const auto& event : trace.events()) {
        if (!consequential(event.kind)) continue;
        std::string line(event.kind);
        for (const Field field : event.fields())
            if (identifying(field)) line += fmt::format(" {}={}", field.key, field_text(field.value));
        by_node[event.node.valid() ? event.node.index : by_node.size() - 1].push_back(std::move(line));
    }
    return by_node;
}

}  // namespace

RunStory story_of(const Trace& trace, const RunMetrics& metrics) {
    return RunStory{stories(trace), trace.node_names(), &metrics};
}

Difference difference(const RunStory& with, const Counterfactual& without, std::string_view without_what) {
    Difference result;
    const auto& a = with.by_node;
    const auto b = stories(without.trace);
    for (std::size_t node = 0; node < a.size() && node < b.size(); ++node)
        if (a[node] != b[node])
            result.nodes.push_back(node < with.node_names.size() ? with.node_names[node] : std::string("world"));
    for (const auto& spec : metric_table) {
        if (!spec.safety) continue;
        const std::int64_t value = with.metrics->value(spec.metric);
        const std::int64_t other = without.metrics.value(spec.metric);
        if (value != other)
            result.metrics.push_back(fmt::format("{} {} ({} {})", spec.name, value, other, without_what));
    }
    return result;
}

FaultJudgement judge_faults(const Trace& trace, const RunStory& story,
                            const std::vector<std::optional<Instant>>& placed_at, std::vector<Difference> without_each,
                            const Counterfactual& without_any, bool held_without_faults) {
    assert(without_each.size() == placed_at.size());
    FaultJudgement judgement;
    auto strikes = strikes_in(trace);
    for (std::size_t fault = 0; fault < placed_at.size(); ++fault) {
        auto& struck = strikes.of_fault[fault];
        const bool reached =
            std::any_of(struck.begin(), struck.end(), [](const FaultStrike& s) { return s.reached_the_lock; });
        judgement.each.push_back(
            FaultEffect{fault, std::move(struck), placed_at[fault], reached, std::move(without_each[fault])});
    }
    judgement.without_any = difference(story, without_any, "without any fault");
    judgement.held_without_faults = held_without_faults;
    judgement.charged_without_faults = without_any.metrics.value(Metric::charges);
    judgement.reached_the_lock = strikes.reached_the_lock;
    judgement.drawn_strikes = strikes.drawn;
    return judgement;
}

}  // namespace locksim
