#pragma once
// Why work was lost rather than done twice, in a clause that starts with " because ": items
// a due run never did, a job that never finished, a lock left behind. Read from the trace
// alone, as every cause.
#include <optional>
#include <string>

#include "checks/metric_table.hpp"
#include "sim/trace.hpp"

namespace locksim {

// The clause for an event flagged as `metric`, or nullopt when it is not a loss of this kind.
std::optional<std::string> cause_of_loss(Metric metric, const TraceEvent& flagged, const Trace& trace);

}  // namespace locksim
