#include "checks/metrics.hpp"

#include "checks/checkers.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace locksim {

const FlaggedEvent* RunMetrics::flag_for(std::uint64_t sequence) const {
    auto found = std::lower_bound(flagged.begin(), flagged.end(), sequence,
                                  [](const FlaggedEvent& f, std::uint64_t s) { return f.sequence < s; });
    return found != flagged.end() && found->sequence == sequence ? &*found : nullptr;
}

std::int64_t RunMetrics::value(std::string_view name) const {
    const MetricSpec* found = find_metric(name);
    if (found == nullptr) throw std::logic_error(fmt::format("no metric named \"{}\"", name));
    return value(found->metric);
}

void RunMetrics::raise_to(Metric metric, std::int64_t value) {
    auto& current = values_[static_cast<std::size_t>(metric)];
    current = std::max(current, value);
}

void RunMetrics::set_ms(Metric metric, Duration duration) {
    assert(metric_spec(metric).unit == MetricUnit::milliseconds);
    values_[static_cast<std::size_t>(metric)] = duration.ns / 1'000'000;
}

namespace {

// A checker run over a kept trace: the same result as when it read the events live.
template <class Checker>
void replay(const Trace& trace, Instant run_end, RunMetrics& metrics) {
    Checker checker;
    for (const auto& event : trace.events()) checker.see(trace, event, metrics);
    checker.finish(trace, run_end, metrics);
}

}  // namespace

RunMetrics check_trace(const Trace& trace, Instant run_end) {
    RunChecks checks;
    for (const auto& event : trace.events()) checks.read(trace, event);
    return checks.finish(trace, run_end);
}

void count_charges(const Trace& trace, RunMetrics& metrics) {
    replay<ChargeCounter>(trace, Instant{}, metrics);
}
void find_suppressed_effects(const Trace& trace, RunMetrics& metrics) {
    replay<SuppressedEffectFinder>(trace, Instant{}, metrics);
}
void find_holder_overlaps(const Trace& trace, Instant run_end, RunMetrics& metrics) {
    replay<OverlapFinder>(trace, run_end, metrics);
}
void check_fencing(const Trace& trace, RunMetrics& metrics) {
    replay<FenceChecker>(trace, Instant{}, metrics);
}
void count_foreign_releases(const Trace& trace, RunMetrics& metrics) {
    replay<ReleaseChecker>(trace, Instant{}, metrics);
}
void count_wakeups(const Trace& trace, RunMetrics& metrics) {
    replay<WakeupCounter>(trace, Instant{}, metrics);
}
void find_finish(const Trace& trace, RunMetrics& metrics) {
    replay<FinishFinder>(trace, Instant{}, metrics);
}
void find_retry_storms(const Trace& trace, RunMetrics& metrics) {
    replay<RetryStormFinder>(trace, Instant{}, metrics);
}
void count_double_applies(const Trace& trace, RunMetrics& metrics) {
    replay<DoubleApplyCounter>(trace, Instant{}, metrics);
}
void measure_duplicate_work(const Trace& trace, RunMetrics& metrics) {
    replay<DuplicateWorkMeter>(trace, Instant{}, metrics);
}
void measure_waits(const Trace& trace, Instant run_end, RunMetrics& metrics) {
    replay<WaitMeter>(trace, run_end, metrics);
}
void find_pending_work(const Trace& trace, RunMetrics& metrics) {
    replay<PendingWorkFinder>(trace, Instant{}, metrics);
}
void find_items_not_done(const Trace& trace, Instant run_end, RunMetrics& metrics) {
    replay<ItemLedger>(trace, run_end, metrics);
}
void find_leaked_locks(const Trace& trace, Instant run_end, RunMetrics& metrics) {
    replay<LockLeakFinder>(trace, run_end, metrics);
}

}  // namespace locksim
