#include "checks/fault_strikes.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "models/faults/clock_events.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

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

}  // namespace

void StrikeReader::read(const TraceEvent& event) {
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
    if ((kind == trace_kind::message_held || kind == trace_kind::message_lost || kind == trace_kind::message_stalled) &&
        event.has("cause"))
        touch(event);
    if (kind == trace_kind::fault_struck) strike(event);
}

Strikes StrikeReader::finish() {
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

void StrikeReader::follow(const TraceEvent& event) {
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

bool StrikeReader::at_work(const ServerState& state) const {
    return state.believes || (without_lock_ && state.job_started && !state.job_finished);
}

std::string StrikeReader::describe(const ServerState& state) const {
    if (state.believes) return "held the lock";
    if (state.job_finished) return "had finished its job";
    if (!state.job_started) return "had not started its job";
    if (without_lock_) return "was running its job (this design has no lock)";
    return "was not holding the lock";
}

// A server the store holds a lock for: its grant may still be on its way to it, or its
// release on its way to the store.
bool StrikeReader::holder_at_store(NodeId node) const {
    const auto found = granted_to_.find(node.index);
    return found != granted_to_.end() && found->second > 0;
}

bool StrikeReader::server_at_work(NodeId node) const {
    const auto found = servers_.find(node.index);
    return found != servers_.end() && at_work(found->second);
}

// A node of the lock's store: the store's own, or where locks were granted (a database
// lock lives in the billing database).
bool StrikeReader::in_store(const FaultStrike& strike) const {
    return strike.role == "lock store" ||
           (strike.role != "server" && strike.target.valid() && lock_nodes_.contains(strike.target.index));
}

bool StrikeReader::reaches(const FaultStrike& strike) const {
    if (strike.role == "server") return server_at_work(strike.target);
    return in_store(strike) && locks_held_ > 0;
}

void StrikeReader::strike(const TraceEvent& event) {
    FaultStrike strike{event.sequence, no_node, std::string(event.text("role")), "", false, {}};
    if (event.has("target")) {
        strike.target = event.node_ref("target");
        if (strike.role == "server")
            strike.was_doing = describe(servers_[strike.target.index]);
        else if (in_store(strike))
            strike.was_doing = locks_held_ > 0 ? "held a lock" : "held no lock";
        awaiting_[strike.target.index] = strikes_.size();
    }
    strike.reached_the_lock = reaches(strike);
    reached_ = reached_ || strike.reached_the_lock;
    if (strike.role == "network") by_sequence_[event.sequence] = strikes_.size();
    fault_of_.push_back(event.has("fault") ? std::optional(static_cast<std::size_t>(event.integer("fault")))
                                           : std::nullopt);
    strikes_.push_back(std::move(strike));
}

// A clock changed earlier reaches the lock once its node holds it.
void StrikeReader::reach_later() {
    for (const std::size_t i : lasting_) {
        FaultStrike& strike = strikes_[i];
        if (strike.reached_the_lock || !reaches(strike)) continue;
        strike.reached_the_lock = true;
        reached_ = true;
        strike.was_doing += strike.role == "server" ? ", and held it later, its clock still changed"
                                                    : ", and one later, its clock still changed";
    }
}

// A message a fault on links held back (a stream's retransmission holds it back too) or
// lost.
void StrikeReader::touch(const TraceEvent& event) {
    const auto found = by_sequence_.find(static_cast<std::uint64_t>(event.integer("cause")));
    if (found == by_sequence_.end()) return;
    FaultStrike& strike = strikes_[found->second];
    if (event.kind == trace_kind::message_held || (event.kind == trace_kind::message_stalled && !event.flag("cut")))
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
    reached_ = true;
}

void FaultReach::read(const TraceEvent& event) {
    // Of the messages only those a fault held back or lost say anything here; in a traced
    // run the rest are most of the events.
    if (event.kind == trace_kind::message_sent || event.kind == trace_kind::message_delivered) return;
    lock_held_ = lock_held_ || event.kind == trace_kind::belief_acquired;
    // A reading that found a strike of the lock keeps it; the other may still be needed.
    if (!with_lock_.reached_the_lock()) with_lock_.read(event);
    if (!lock_held_ && !without_lock_.reached_the_lock()) without_lock_.read(event);
}

bool FaultReach::reached_the_lock() const {
    return lock_held_ ? with_lock_.reached_the_lock() : without_lock_.reached_the_lock();
}

}  // namespace locksim
