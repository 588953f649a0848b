// Progress of the job and its waiters.
//
// The herd effect: how many waiters one deletion woke. Watching the predecessor wakes
// one; watching the holder wakes every waiter to find a single winner.
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {

void count_wakeups(const Trace& trace, RunMetrics& metrics) {
    std::map<std::string, std::int64_t> woken_by_deletion;
    for (const auto& event : trace.events())
        if (event.kind == trace_kind::watch_fired) ++woken_by_deletion[event.text("key")];
    for (const auto& [key, woken] : woken_by_deletion)
        metrics.max_wakeups_per_release = std::max(metrics.max_wakeups_per_release, woken);
}

}  // namespace locksim

namespace locksim {

// How long the job took across all servers: a lock that stays taken after its holder
// died shows up here as a stall.
void find_finish(const Trace& trace, RunMetrics& metrics) {
    for (const auto& event : trace.events())
        if (event.kind == trace_kind::job_finished)
            metrics.finished_ms = std::max(metrics.finished_ms, event.at.ns / 1'000'000);
}

}  // namespace locksim

namespace locksim {

// Waiting servers that retry in step hit the store together: without jitter every
// waiter's retry lands in the same millisecond, round after round. A client's first
// refused attempt is not a retry (everyone starting at midnight is no storm).
void find_retry_storms(const Trace& trace, RunMetrics& metrics) {
    std::map<std::int64_t, std::int64_t> retries_per_ms;
    std::set<std::uint32_t> refused_before;
    for (const auto& event : trace.events()) {
        if (event.kind != trace_kind::lock_refused) continue;
        if (refused_before.insert(event.node_ref("client").index).second) continue;
        const std::int64_t in_ms = ++retries_per_ms[event.at.ns / 1'000'000];
        metrics.peak_retries_per_ms = std::max(metrics.peak_retries_per_ms, in_ms);
    }
}

}  // namespace locksim

namespace locksim {

// Liveness, the other side of the TTL trade (seed §2): how long the work stood still
// after a holder crashed, how long jobs waited for the lock, how often the store said no,
// and how many schedulers ran the job at all.
void measure_waits(const Trace& trace, Instant run_end, RunMetrics& metrics) {
    std::set<std::uint32_t> believing;
    std::map<std::uint32_t, Instant> waiting_since;  // job started, lock not yet held
    std::optional<Instant> stalled_since;            // a holder crashed, nobody has been granted since
    for (const auto& event : trace.events()) {
        const std::uint32_t node = event.node.index;
        if (event.kind == trace_kind::job_started) {
            ++metrics.job_runs;
            if (!believing.contains(node)) waiting_since[node] = event.at;
        } else if (event.kind == trace_kind::belief_acquired) {
            believing.insert(node);
            if (auto waited = waiting_since.find(node); waited != waiting_since.end()) {
                metrics.longest_wait = std::max(metrics.longest_wait, event.at - waited->second);
                waiting_since.erase(waited);
            }
            if (stalled_since) metrics.longest_stall = std::max(metrics.longest_stall, event.at - *stalled_since);
            stalled_since.reset();
        } else if (event.kind == trace_kind::belief_ended) {
            believing.erase(node);
        } else if (event.kind == trace_kind::job_finished) {
            waiting_since.erase(node);  // a job that never needed the lock (there is none) did not wait for it
        } else if (event.kind == trace_kind::node_crashed) {
            if (believing.erase(node) > 0 && !stalled_since) stalled_since = event.at;
            waiting_since.erase(node);
        } else if (event.kind == trace_kind::lock_refused) {
            ++metrics.lock_refusals;
        }
    }
    for (const auto& [_, since] : waiting_since) metrics.longest_wait = std::max(metrics.longest_wait, run_end - since);
    if (stalled_since) metrics.longest_stall = std::max(metrics.longest_stall, run_end - *stalled_since);
}

}  // namespace locksim
