#include "checks/fault_effects.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cassert>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "models/faults/clock_events.hpp"
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
    bool reached_the_lock = false;                             // any fault, drawn ones too
    std::size_t drawn = 0;                                     // strikes of drawn faults
};

std::string count_of(std::size_t n, std::string_view thing) {
    return fmt::format("{} {}{}", n, thing, n == 1 ? "" : "s");
}

// What a fault on links did to messages, in words: "no message crossed its links while it
// held", "it held back 3 messages, none of them the lock's (…)".
std::string touched_words(const MessagesTouched& messages) {
    if (messages.total() == 0) return "no message crossed its links while it held";
    std::vector<std::string> done;
    if (messages.held > 0) done.push_back("held back " + count_of(messages.held, "message"));
    if (messages.lost > 0) done.push_back("lost " + count_of(messages.lost, "message"));
    if (messages.cut > 0) done.push_back("cut " + count_of(messages.cut, "message"));
    std::string which;
    if (messages.of_the_lock == 0)
        which = messages.total() == 1 ? "not one of the lock's" : "none of them the lock's";
    else if (messages.of_the_lock == messages.total())
        which = messages.total() == 1 ? "one of the lock's" : "all of them the lock's";
    else
        which = fmt::format("{} of them the lock's", messages.of_the_lock);
    return fmt::format(
        "it {}, {} (to or from a server holding the lock, or between the store's nodes while it held "
        "one)",
        fmt::join(done, " and "), which);
}

// Reads a run's trace once, following what each server was doing and how many locks the
// store held, and judges each strike of a fault (own or drawn) by the test in
// fault_effects.hpp. Three kinds of strike are judged beyond their moment:
//  - a fault on links, by the messages that name it (message.held, message.lost) as they
//    are sent: one of the lock reaches it;
//  - a clock step or slew, whose clock stays changed: it reaches the lock when its node
//    holds the lock then or at any later time (a waiting server that takes the lock later
//    times its lease on the changed clock);
//  - the rest (a pause, a crash) only at their moment, as the node was then.
class StrikeReader {
public:
    explicit StrikeReader(const Trace& trace) : without_lock_(lockless(trace)) {}

    void read(const TraceEvent& event) {
        const std::string_view kind = event.kind;
        follow(event);
        if (changes_wall_clock(event)) {
            // The clock of the node the fault just struck changed: it stays changed.
            if (const auto found = awaiting_.find(event.node.index); found != awaiting_.end()) {
                lasting_.push_back(found->second);
                awaiting_.erase(found);
            }
        } else if (kind == trace_kind::node_paused || kind == trace_kind::node_crashed) {
            awaiting_.erase(event.node.index);
        }
        if (kind == trace_kind::belief_acquired || kind == trace_kind::lock_granted ||
            (without_lock_ && (kind == trace_kind::job_started || kind == trace_kind::job_campaigning)))
            reach_later();
        if ((kind == trace_kind::message_held || kind == trace_kind::message_lost) && event.has("cause")) touch(event);
        if (kind == trace_kind::fault_struck) strike(event);
    }

    Strikes finish() {
        Strikes result;
        for (std::size_t i = 0; i < strikes_.size(); ++i) {
            FaultStrike& strike = strikes_[i];
            if (strike.role == "network") strike.was_doing = touched_words(strike.messages);
            result.reached_the_lock = result.reached_the_lock || strike.reached_the_lock;
            if (fault_of_[i])
                result.of_fault[*fault_of_[i]].push_back(std::move(strike));
            else
                ++result.drawn;
        }
        return result;
    }

private:
    void follow(const TraceEvent& event) {
        const std::string_view kind = event.kind;
        if (kind == trace_kind::lock_granted) {
            ++locks_held_;
            ++granted_to_[event.node_ref("holder").index];
            lock_nodes_.insert(event.node.index);
        }
        if (kind == trace_kind::lock_released || kind == trace_kind::lock_expired) {
            if (locks_held_ > 0) --locks_held_;
            if (auto& granted = granted_to_[event.node_ref("holder").index]; granted > 0) --granted;
        }
        if (kind == trace_kind::job_started || kind == trace_kind::job_campaigning)
            servers_[event.node.index].job_started = true;
        else if (kind == trace_kind::job_finished)
            servers_[event.node.index].job_finished = true;
        else if (kind == trace_kind::belief_acquired)
            servers_[event.node.index].believes = true;
        else if (kind == trace_kind::belief_ended)
            servers_[event.node.index].believes = false;
        else if (const auto found = servers_.find(event.node.index);
                 kind == trace_kind::node_crashed && found != servers_.end())
            found->second.believes = false;  // a process that is gone believes nothing
    }

    bool is_server(NodeId node) const { return servers_.contains(node.index); }
    // A server the store holds a lock for: its grant may still be on its way to it, or its
    // release on its way to the store.
    bool holder_at_store(NodeId node) const {
        const auto found = granted_to_.find(node.index);
        return found != granted_to_.end() && found->second > 0;
    }
    bool server_at_work(NodeId node) const {
        const auto found = servers_.find(node.index);
        return found != servers_.end() && at_work(found->second, without_lock_);
    }
    // A node of the lock's store: the store's own, or where locks were granted (a
    // database lock lives in the billing database).
    bool in_store(const FaultStrike& strike) const {
        return strike.role == "lock store" ||
               (strike.role != "server" && strike.target.valid() && lock_nodes_.contains(strike.target.index));
    }
    bool reaches(const FaultStrike& strike) const {
        if (strike.role == "server") return server_at_work(strike.target);
        return in_store(strike) && locks_held_ > 0;
    }

    void strike(const TraceEvent& event) {
        FaultStrike strike{event.sequence, no_node, std::string(event.text("role")), "", false, {}};
        if (event.has("target")) {
            strike.target = event.node_ref("target");
            if (strike.role == "server")
                strike.was_doing = describe(servers_[strike.target.index], without_lock_);
            else if (in_store(strike))
                strike.was_doing = locks_held_ > 0 ? "held a lock" : "held no lock";
            awaiting_[strike.target.index] = strikes_.size();
        }
        strike.reached_the_lock = reaches(strike);
        if (strike.role == "network") by_sequence_[event.sequence] = strikes_.size();
        fault_of_.push_back(event.has("fault") ? std::optional(static_cast<std::size_t>(event.integer("fault")))
                                               : std::nullopt);
        strikes_.push_back(std::move(strike));
    }

    // A clock changed earlier reaches the lock once its node holds it.
    void reach_later() {
        for (const std::size_t i : lasting_) {
            FaultStrike& strike = strikes_[i];
            if (strike.reached_the_lock || !reaches(strike)) continue;
            strike.reached_the_lock = true;
            strike.was_doing += strike.role == "server" ? ", and held it later, its clock still changed"
                                                        : ", and one later, its clock still changed";
        }
    }

    // A message a fault on links held back or lost.
    void touch(const TraceEvent& event) {
        const auto found = by_sequence_.find(static_cast<std::uint64_t>(event.integer("cause")));
        if (found == by_sequence_.end()) return;
        FaultStrike& strike = strikes_[found->second];
        if (event.kind == trace_kind::message_held)
            ++strike.messages.held;
        else if (event.flag("cut"))
            ++strike.messages.cut;
        else
            ++strike.messages.lost;
        const NodeId from = event.node;
        const NodeId to = event.node_ref("to");
        const auto holder = [this](NodeId node) { return server_at_work(node) || holder_at_store(node); };
        const bool of_the_lock = holder(from) || holder(to) || (!is_server(from) && !is_server(to) && locks_held_ > 0);
        if (!of_the_lock) return;
        ++strike.messages.of_the_lock;
        strike.reached_the_lock = true;
    }

    bool without_lock_;
    std::map<std::uint32_t, ServerState> servers_;  // every node known to be a server, by index
    std::set<std::uint32_t> lock_nodes_;            // nodes that granted a lock
    std::int64_t locks_held_ = 0;                   // as the store saw them: granted and not yet released or expired
    std::map<std::uint32_t, std::int64_t> granted_to_;  // the same, by holder
    std::vector<FaultStrike> strikes_;                  // every strike, in trace order
    std::vector<std::optional<std::size_t>> fault_of_;  // each strike's fault in the file; none: drawn
    std::map<std::uint64_t, std::size_t> by_sequence_;  // strikes on links, by their fault.struck event
    std::map<std::uint32_t, std::size_t> awaiting_;     // a node's latest strike, until what it did follows
    std::vector<std::size_t> lasting_;                  // strikes that changed a clock
};

// The strikes of each fault, with what each struck node was doing at that moment.
Strikes strikes_in(const Trace& trace) {
    StrikeReader reader(trace);
    for (const auto& event : trace.events()) reader.read(event);
    return reader.finish();
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
