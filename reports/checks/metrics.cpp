#include "reports/checks/metrics.hpp"

#include <algorithm>
#include <fmt/format.h>

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

const std::vector<std::string>& metric_names() {
    static const std::vector<std::string> names{"double_charges",        "charges",
                                                "overlapping_holders",   "stale_writes_rejected",
                                                "stale_writes_accepted", "foreign_releases",
                                                "max_wakeups_per_release", "finished_ms",
                                                "token_grants", "peak_retries_per_ms"};
    return names;
}

std::int64_t RunMetrics::value(std::string_view metric) const {
    if (metric == "double_charges") return double_charges();
    if (metric == "charges") return charges;
    if (metric == "overlapping_holders") return static_cast<std::int64_t>(overlaps.size());
    if (metric == "stale_writes_rejected") return stale_writes_rejected;
    if (metric == "stale_writes_accepted") return stale_writes_accepted;
    if (metric == "foreign_releases") return foreign_releases;
    if (metric == "max_wakeups_per_release") return max_wakeups_per_release;
    if (metric == "finished_ms") return finished_ms;
    if (metric == "token_grants") return token_grants;
    if (metric == "peak_retries_per_ms") return peak_retries_per_ms;
    // The loader only accepts names from metric_names(); anything else is a bug.
    throw std::logic_error(fmt::format("no metric named \"{}\"", metric));
}

RunMetrics check_trace(const Trace& trace, Instant run_end) {
    RunMetrics metrics;
    count_charges(trace, metrics);
    find_overlapping_holders(trace, run_end, metrics);
    check_fencing(trace, metrics);
    count_foreign_releases(trace, metrics);
    count_wakeups(trace, metrics);
    find_finish(trace, metrics);
    find_retry_storms(trace, metrics);
    std::sort(metrics.flagged.begin(), metrics.flagged.end(),
              [](const FlaggedEvent& a, const FlaggedEvent& b) { return a.sequence < b.sequence; });
    return metrics;
}

}  // namespace locksim
