// What the store did with the lock: a release that removed somebody else's lock (the
// plain-DEL bug), grants that carried a fencing token, and grants whose
// token did not rise above every earlier one (a counter that lost increments).
#include <fmt/format.h>

#include <optional>

#include "checks/checkers.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {

namespace {

void count_token(const Trace& trace, const TraceEvent& grant, std::optional<std::int64_t>& highest,
                 RunMetrics& metrics) {
    metrics.add(Metric::token_grants);
    const std::int64_t token = grant.integer("token");
    if (highest && token <= *highest) {
        metrics.add(Metric::tokens_reused);
        metrics.flagged.push_back(FlaggedEvent{
            grant.sequence, Metric::tokens_reused,
            fmt::format("token {} granted to {} is not above token {} granted before: a fence cannot tell them apart",
                        token, trace.node_name(grant.node_ref("holder")), *highest)});
    }
    if (!highest || token > *highest) highest = token;
}

}  // namespace

void ReleaseChecker::see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics) {
    if (event.kind == trace_kind::lock_granted && event.has("token"))
        count_token(trace, event, highest_token_, metrics);
    if (event.kind != trace_kind::lock_released || event.node_ref("holder") == event.node_ref("by")) return;
    metrics.add(Metric::foreign_releases);
    metrics.flagged.push_back(
        FlaggedEvent{event.sequence, Metric::foreign_releases,
                     fmt::format("{} removed the lock that {} held", trace.node_name(event.node_ref("by")),
                                 trace.node_name(event.node_ref("holder")))});
}

}  // namespace locksim
