// The cost of an efficiency lock failing: the search index built twice in the
// same hour is processor time thrown away, not an incident. Every build of a period
// after the first is counted whole.
#include <fmt/format.h>

#include <set>

#include "checks/checkers.hpp"
#include "models/trace_kinds.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

void DuplicateWorkMeter::see(const Trace&, const TraceEvent& event, RunMetrics& metrics) {
    if (event.kind != trace_kind::index_built) return;
    if (built_.insert(std::string(event.text("period"))).second) return;
    const Duration wasted = event.duration("cpu");
    metrics.duplicate_work += wasted;
    metrics.flagged.push_back(FlaggedEvent{
        event.sequence, Metric::duplicate_work_ms,
        fmt::format("index for {} built again: {} of processor time wasted", event.text("period"), wasted)});
}

void DuplicateWorkMeter::finish(const Trace&, Instant, RunMetrics& metrics) {
    metrics.set_ms(Metric::duplicate_work_ms, metrics.duplicate_work);
}

}  // namespace locksim
