// Progress of the job and its waiters, and what was left unfinished when the run ended.
//
// The herd effect: how many waiters one deletion woke. Watching the predecessor wakes
// one; watching the holder wakes every waiter to find a single winner.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "checks/checkers.hpp"
#include "checks/unanswered_request.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"
#include "sim/duration_text.hpp"
#include "sim/engine.hpp"

namespace locksim {

void WakeupCounter::see(const Trace&, const TraceEvent& event, RunMetrics&) {
    if (event.kind == trace_kind::watch_fired) ++woken_by_deletion_[std::string(event.text("key"))];
}

void WakeupCounter::finish(const Trace&, Instant, RunMetrics& metrics) {
    for (const auto& [key, woken] : woken_by_deletion_) metrics.raise_to(Metric::max_wakeups_per_release, woken);
}

}  // namespace locksim

namespace locksim {

// How long the job took across all servers: a lock that stays taken after its holder
// died shows up here as a stall.
void FinishFinder::see(const Trace&, const TraceEvent& event, RunMetrics& metrics) {
    if (event.kind == trace_kind::job_finished) metrics.raise_to(Metric::finished_ms, event.at.ns / 1'000'000);
}

}  // namespace locksim

namespace locksim {

// Waiting servers that retry in step hit the store together: without jitter every
// waiter's retry lands in the same millisecond, round after round. A client's first
// refused attempt is not a retry (everyone starting at midnight is no storm).
void RetryStormFinder::see(const Trace&, const TraceEvent& event, RunMetrics& metrics) {
    if (event.kind != trace_kind::lock_refused) return;
    if (refused_before_.insert(event.node_ref("client").index).second) return;
    const std::int64_t in_ms = ++retries_per_ms_[event.at.ns / 1'000'000];
    metrics.raise_to(Metric::peak_retries_per_ms, in_ms);
}

}  // namespace locksim

namespace locksim {

// Liveness, the other side of the TTL trade: how long the work stood still
// after a holder crashed, how long jobs waited for the lock, how often the store said no,
// and how many schedulers ran the job at all.
void WaitMeter::see(const Trace&, const TraceEvent& event, RunMetrics& metrics) {
    const std::uint32_t node = event.node.index;
    if (event.kind == trace_kind::job_started) {
        metrics.add(Metric::job_runs);
        if (!believing_.contains(node)) waiting_since_[node] = event.at;
    } else if (event.kind == trace_kind::belief_acquired) {
        believing_.insert(node);
        if (auto waited = waiting_since_.find(node); waited != waiting_since_.end()) {
            metrics.longest_wait = std::max(metrics.longest_wait, event.at - waited->second);
            waiting_since_.erase(waited);
        }
        if (stalled_since_) metrics.longest_stall = std::max(metrics.longest_stall, event.at - *stalled_since_);
        stalled_since_.reset();
    } else if (event.kind == trace_kind::belief_ended) {
        believing_.erase(node);
    } else if (event.kind == trace_kind::job_finished) {
        waiting_since_.erase(node);  // a job that never needed the lock (there is none) did not wait for it
    } else if (event.kind == trace_kind::node_crashed) {
        if (believing_.erase(node) > 0 && !stalled_since_) stalled_since_ = event.at;
        waiting_since_.erase(node);
    } else if (event.kind == trace_kind::lock_refused) {
        metrics.add(Metric::lock_refusals);
    }
}

void WaitMeter::finish(const Trace&, Instant run_end, RunMetrics& metrics) {
    for (const auto& [_, since] : waiting_since_)
        metrics.longest_wait = std::max(metrics.longest_wait, run_end - since);
    if (stalled_since_) metrics.longest_stall = std::max(metrics.longest_stall, run_end - *stalled_since_);
    metrics.set_ms(Metric::stall_ms, metrics.longest_stall);
    metrics.set_ms(Metric::longest_wait_ms, metrics.longest_wait);
}

}  // namespace locksim

namespace locksim {

// What was still under way when the run ended, read from the trace alone:
//
//   1. a job run that started (job.started) and had not ended (no job.finished, and its
//      server had not crashed: a crash ends the job for good). Waiting for the lock, for a
//      reply, or frozen by a pause, it still had work to do.
//   2. a charge request that may still reach the provider: per server, customer and
//      period, more attempts sent than the provider saw (provider.charged, .replayed or
//      .refused). The attempts sent are what the time-outs show: attempt n timed out, and
//      one more left if it was retrying. A request sent with no time-out at all is either
//      answered or inside an open job run (1); one lost on the way cannot be told from one
//      still travelling without the messages (sweeps leave them out), so it counts: the
//      model's provider waits for it too.
//
// What begins no work is not pending: a recurring job's next tick, heartbeats, renewals.
void PendingWorkFinder::see(const Trace&, const TraceEvent& event, RunMetrics&) {
    const std::uint32_t node = event.node.index;
    if (event.kind == trace_kind::job_started) {
        running_.emplace(node, Started{event.at, event.sequence});
    } else if (event.kind == trace_kind::job_finished) {
        running_.erase(node);
        settle(node);
    } else if (event.kind == trace_kind::node_crashed) {
        running_.erase(node);
        frozen_.erase(node);
        settle(node);
    } else if (event.kind == trace_kind::node_paused) {
        frozen_.emplace(node, event.at);
    } else if (event.kind == trace_kind::node_resumed) {
        frozen_.erase(node);
    } else if (event.kind == trace_kind::job_charge_timed_out) {
        auto& attempts = charges_[{node, event.integer("customer"), std::string(event.text("period"))}];
        attempts.sent = std::max(attempts.sent, event.integer("attempt") + (event.flag("retrying") ? 1 : 0));
        if (!attempts.first_timed_out) {
            attempts.first_timed_out = event.at;
            attempts.first_timed_out_sequence = event.sequence;
        }
    } else if (event.kind == trace_kind::provider_charged || event.kind == trace_kind::provider_replayed ||
               event.kind == trace_kind::provider_refused || event.kind == trace_kind::provider_precondition_failed) {
        ++charges_[{event.node_ref("by").index, event.integer("customer"), std::string(event.text("period"))}].arrived;
    }
}

// Once a server's job run is over, its requests whose every attempt arrived can see no
// more arrivals: forgotten, so that a long recurring job keeps only what may still come.
void PendingWorkFinder::settle(std::uint32_t server) {
    auto request = charges_.lower_bound({server, INT64_MIN, std::string()});
    while (request != charges_.end() && std::get<0>(request->first) == server)
        request = request->second.sent > request->second.arrived ? std::next(request) : charges_.erase(request);
}

// Each piece of pending work is unfinished work, a violation: the run cannot vouch for
// what it would have done.
void PendingWorkFinder::finish(const Trace& trace, Instant, RunMetrics& metrics) {
    const auto frozen = [this](std::uint32_t node) -> std::optional<Instant> {
        const auto found = frozen_.find(node);
        return found == frozen_.end() ? std::nullopt : std::optional<Instant>(found->second);
    };
    for (const auto& [node, started] : running_)
        metrics.pending.push_back(
            PendingWork{NodeId{node}, started.sequence, started.at, std::nullopt, "", frozen(node)});
    for (const auto& [request, attempts] : charges_) {
        const auto& [node, customer, period] = request;
        if (attempts.sent > attempts.arrived)
            metrics.pending.push_back(PendingWork{NodeId{node}, attempts.first_timed_out_sequence,
                                                  *attempts.first_timed_out, customer, period, frozen(node)});
    }
    std::stable_sort(metrics.pending.begin(), metrics.pending.end(),
                     [](const PendingWork& a, const PendingWork& b) { return a.server.index < b.server.index; });
    for (const PendingWork& work : metrics.pending) {
        metrics.add(Metric::unfinished_work);
        metrics.flagged.push_back(FlaggedEvent{work.sequence, Metric::unfinished_work,
                                               describe_pending(work, trace) + ": never finished by the run's end"});
    }
}

bool unfinished(const RunMetrics& metrics) {
    return !metrics.pending.empty();
}

std::string describe_pending(const PendingWork& work, const Trace& trace) {
    const std::string frozen =
        work.frozen_since ? fmt::format("; frozen since {}", format_seconds(*work.frozen_since)) : "";
    if (!work.customer)
        return fmt::format("{}'s job run (started at {}{})", trace.node_name(work.server), format_seconds(work.since),
                           frozen);
    const Vocabulary words = vocabulary_of(trace);
    return fmt::format("{}'s {} request for {} {} ({}), timed out at {} and not yet at the {}{}",
                       trace.node_name(work.server), words.effect, words.item, *work.customer, work.period,
                       format_seconds(work.since), words.provider, frozen);
}

std::string describe_pending_wait(const PendingWork& work, const Trace& trace) {
    std::string text = describe_pending(work, trace);
    if (work.customer || work.frozen_since) return text;
    if (const TraceEvent* request = unanswered_request(trace, work.server, work.since))
        text += fmt::format("; it has waited since {} for {}'s reply to '{}'", format_seconds(request->at),
                            trace.node_name(request->node_ref("to")), request->text("label"));
    return text;
}

}  // namespace locksim
