// Progress of the job and its waiters.
//
// The herd effect: how many waiters one deletion woke. Watching the predecessor wakes
// one; watching the holder wakes every waiter to find a single winner.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "checks/checkers.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {

void WakeupCounter::see(const Trace&, const TraceEvent& event, RunMetrics&) {
    if (event.kind == trace_kind::watch_fired) ++woken_by_deletion_[event.text("key")];
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
