// What the store did with the lock: a release that removed somebody else's lock (the
// plain-DEL bug of seed section 2), and grants that carried a fencing token.
#include <fmt/format.h>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {

void count_foreign_releases(const Trace& trace, RunMetrics& metrics) {
    for (const auto& event : trace.events()) {
        if (event.kind == trace_kind::lock_granted && event.has("token")) ++metrics.token_grants;
        if (event.kind != trace_kind::lock_released || event.node_ref("holder") == event.node_ref("by")) continue;
        ++metrics.foreign_releases;
        metrics.flagged.push_back(
            FlaggedEvent{event.sequence, true,
                         fmt::format("{} removed the lock that {} held", trace.node_name(event.node_ref("by")),
                                     trace.node_name(event.node_ref("holder"))),
                         "foreign_releases"});
    }
}

}  // namespace locksim
