#include "checks/fault_effects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <string_view>

#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

// What a server was doing, as its own events tell it.
struct ServerState {
    bool job_started = false;
    bool job_finished = false;
    bool believes = false;
};

// In a design without a lock nobody ever believes it holds one: a server at work is what a
// fault can hurt there.
bool lockless(const Trace& trace) {
    return std::none_of(trace.events().begin(), trace.events().end(),
                        [](const TraceEvent& e) { return e.kind == trace_kind::belief_acquired; });
}

bool at_work(const ServerState& state, bool without_lock) {
    return state.believes || (without_lock && state.job_started && !state.job_finished);
}

std::string describe(const ServerState& state, bool without_lock) {
    if (state.believes) return "held the lock";
    if (state.job_finished) return "had finished its job";
    if (!state.job_started) return "had not started its job";
    if (without_lock) return "was running its job (this design has no lock)";
    return "was not holding the lock";
}

struct Strikes {
    std::map<std::size_t, std::vector<FaultStrike>> of_fault;  // the scenario's own, by number
    std::map<std::size_t, bool> reached;                       // the scenario's own that reached the lock
    bool reached_the_lock = false;                             // any fault, drawn ones too
    bool network = false;                                      // any fault on links
};

// The strikes of each fault, with what each struck server was doing at that moment.
Strikes strikes_in(const Trace& trace) {
    Strikes strikes;
    const bool without_lock = lockless(trace);
    std::map<std::uint32_t, ServerState> servers;
    std::int64_t locks_held = 0;  // as the store saw them: granted and not yet released or expired
    for (const auto& event : trace.events()) {
        const std::string_view kind = event.kind;
        if (kind == trace_kind::lock_granted) ++locks_held;
        if ((kind == trace_kind::lock_released || kind == trace_kind::lock_expired) && locks_held > 0) --locks_held;
        if (kind == trace_kind::job_started || kind == trace_kind::job_campaigning)
            servers[event.node.index].job_started = true;
        else if (kind == trace_kind::job_finished)
            servers[event.node.index].job_finished = true;
        else if (kind == trace_kind::belief_acquired)
            servers[event.node.index].believes = true;
        else if (kind == trace_kind::belief_ended || kind == trace_kind::node_crashed)
            servers[event.node.index].believes = false;  // a process that is gone believes nothing
        if (kind != trace_kind::fault_struck) continue;
        FaultStrike strike{event.sequence, no_node, event.text("role"), ""};
        if (event.has("target")) {
            strike.target = event.node_ref("target");
            if (strike.role == "server") strike.was_doing = describe(servers[strike.target.index], without_lock);
        }
        const bool reached = (strike.role == "server" && at_work(servers[strike.target.index], without_lock)) ||
                             (strike.role == "lock store" && locks_held > 0);
        strikes.reached_the_lock = strikes.reached_the_lock || reached;
        strikes.network = strikes.network || strike.role == "network";
        if (event.has("fault")) {
            const auto fault = static_cast<std::size_t>(event.integer("fault"));
            strikes.reached[fault] = strikes.reached[fault] || reached;
            strikes.of_fault[fault].push_back(std::move(strike));
        }
    }
    return strikes;
}

// The kinds that change what a run comes to. Left out: refusals, renewals, lease checks,
// wake-ups, reads and messages, whose number any shift in timing changes, and the
// faults' own events.
constexpr std::array<std::string_view, 21> consequential_kinds{
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
    trace_kind::provider_refused.name,
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

std::string field_text(const FieldValue& value) {
    if (const auto* n = std::get_if<std::int64_t>(&value)) return fmt::format("{}", *n);
    if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
    if (const auto* s = std::get_if<std::string>(&value)) return *s;
    if (const auto* id = std::get_if<NodeId>(&value)) return fmt::format("#{}", id->index);
    return "";
}

// Per node, its consequential events as text, in trace order.
std::vector<std::vector<std::string>> stories(const Trace& trace) {
    std::vector<std::vector<std::string>> by_node(trace.node_names().size() + 1);
    for (const auto& event : trace.events()) {
        if (!consequential(event.kind)) continue;
        std::string line(event.kind);
        for (const auto& field : event.fields)
            if (identifying(field)) line += fmt::format(" {}={}", field.key, field_text(field.value));
        by_node[event.node.valid() ? event.node.index : by_node.size() - 1].push_back(std::move(line));
    }
    return by_node;
}

}  // namespace

Difference difference(const Trace& with, const RunMetrics& with_metrics, const Counterfactual& without,
                      std::string_view without_what) {
    Difference result;
    const auto a = stories(with);
    const auto b = stories(without.trace);
    for (std::size_t node = 0; node < a.size() && node < b.size(); ++node)
        if (a[node] != b[node])
            result.nodes.push_back(node < with.node_names().size() ? with.node_names()[node] : std::string("world"));
    for (const auto& spec : metric_table) {
        if (!spec.safety) continue;
        const std::int64_t value = with_metrics.value(spec.metric);
        const std::int64_t other = without.metrics.value(spec.metric);
        if (value != other)
            result.metrics.push_back(fmt::format("{} {} ({} {})", spec.name, value, other, without_what));
    }
    return result;
}

FaultJudgement judge_faults(const Trace& trace, const RunMetrics& metrics, std::size_t fault_count,
                            const std::vector<Counterfactual>& without_each, const Counterfactual& without_any,
                            bool held_without_faults) {
    FaultJudgement judgement;
    auto strikes = strikes_in(trace);
    for (std::size_t fault = 0; fault < fault_count; ++fault) {
        FaultEffect effect{fault, std::move(strikes.of_fault[fault]), strikes.reached[fault], false,
                           difference(trace, metrics, without_each.at(fault), "without it")};
        effect.network = std::any_of(effect.struck.begin(), effect.struck.end(),
                                     [](const FaultStrike& s) { return s.role == "network"; });
        judgement.each.push_back(std::move(effect));
    }
    judgement.without_any = difference(trace, metrics, without_any, "without any fault");
    judgement.held_without_faults = held_without_faults;
    judgement.charged_without_faults = without_any.metrics.value(Metric::charges);
    judgement.reached_the_lock = strikes.reached_the_lock;
    judgement.network = strikes.network;
    return judgement;
}

}  // namespace locksim
