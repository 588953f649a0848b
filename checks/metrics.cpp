#include "checks/metrics.hpp"

#include "checks/checkers.hpp"

#include <fmt/format.h>
#include <algorithm>

#include <stdexcept>

namespace locksim {

std::int64_t RunMetrics::double_charges() const {
    std::int64_t extra = 0;
    for (const auto& d : double_charged) extra += d.charges - 1;
    return extra;
}

const FlaggedEvent* RunMetrics::flag_for(std::uint64_t sequence) const {
    auto found = std::lower_bound(flagged.begin(), flagged.end(), sequence,
                                  [](const FlaggedEvent& f, std::uint64_t s) { return f.sequence < s; });
    return found != flagged.end() && found->sequence == sequence ? &*found : nullptr;
}

namespace {

std::int64_t in_ms(Duration d) {
    return d.ns / 1'000'000;
}

struct MetricDefinition {
    std::string_view name;
    std::string_view meaning;
    std::int64_t (*value)(const RunMetrics&);
};

// One table: the names scenario files use, what each counts, and where it comes from.
constexpr MetricDefinition metric_table[] = {
    {"double_charges", "charges beyond the first for one customer and period, at the payment provider",
     [](const RunMetrics& m) { return m.double_charges(); }},
    {"charges", "charges that moved money at the payment provider", [](const RunMetrics& m) { return m.charges; }},
    {"double_applies", "renewal rows set to charged by a second server at the billing database",
     [](const RunMetrics& m) { return m.double_applies; }},
    {"overlapping_holders", "pairs of servers that each believed they held the lock at the same true time",
     [](const RunMetrics& m) { return static_cast<std::int64_t>(m.overlaps.size()); }},
    {"stale_writes_rejected",
     "fenced writes the database refused because a newer token had written, and charges the provider refused for "
     "a token below the highest it had seen",
     [](const RunMetrics& m) { return m.stale_writes_rejected; }},
    {"stale_writes_accepted", "fenced writes or charges let through although a newer token had written (a bug)",
     [](const RunMetrics& m) { return m.stale_writes_accepted; }},
    {"foreign_releases", "locks deleted by a server that did not hold them",
     [](const RunMetrics& m) { return m.foreign_releases; }},
    {"max_wakeups_per_release", "most waiters one release woke (the herd effect)",
     [](const RunMetrics& m) { return m.max_wakeups_per_release; }},
    {"finished_ms", "true time in ms at which the last job ended; 0 if none did",
     [](const RunMetrics& m) { return m.finished_ms; }},
    {"token_grants", "grants that carried a fencing token", [](const RunMetrics& m) { return m.token_grants; }},
    {"tokens_reused", "grants whose token was not above every token granted before (a counter that lost increments)",
     [](const RunMetrics& m) { return m.tokens_reused; }},
    {"peak_retries_per_ms", "most refused retries within one millisecond (waiters retrying in step)",
     [](const RunMetrics& m) { return m.peak_retries_per_ms; }},
    {"duplicate_work_ms", "processor time in ms spent on index builds beyond the first (an efficiency lock's cost)",
     [](const RunMetrics& m) { return in_ms(m.duplicate_work); }},
    {"stall_ms", "longest time in ms from a holder's crash to the next grant (to the run's end if none came)",
     [](const RunMetrics& m) { return in_ms(m.longest_stall); }},
    {"longest_wait_ms", "longest time in ms a job waited from its start to holding the lock",
     [](const RunMetrics& m) { return in_ms(m.longest_wait); }},
    {"lock_refusals", "acquire attempts the store refused", [](const RunMetrics& m) { return m.lock_refusals; }},
    {"job_runs", "jobs that started; servers that were not the leader did not start theirs",
     [](const RunMetrics& m) { return m.job_runs; }},
};

const MetricDefinition* find_metric(std::string_view name) {
    for (const auto& metric : metric_table)
        if (metric.name == name) return &metric;
    return nullptr;
}

}  // namespace

const std::vector<std::string>& metric_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> result;
        for (const auto& metric : metric_table) result.emplace_back(metric.name);
        return result;
    }();
    return names;
}

std::string_view metric_meaning(std::string_view metric) {
    const auto* found = find_metric(metric);
    return found ? found->meaning : std::string_view{};
}

std::int64_t RunMetrics::value(std::string_view metric) const {
    // The loader only accepts names from metric_names(); anything else is a bug.
    const auto* found = find_metric(metric);
    if (found == nullptr) throw std::logic_error(fmt::format("no metric named \"{}\"", metric));
    return found->value(*this);
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
void find_overlapping_holders(const Trace& trace, Instant run_end, RunMetrics& metrics) {
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

}  // namespace locksim
