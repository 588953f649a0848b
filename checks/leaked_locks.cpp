// A lock left behind: the store still holds it when the run ends, no lease will free it,
// and its holder no longer believes it holds it (its job released it on another session,
// ended without releasing, or its machine crashed). Nobody else can take it until an
// operator or the end of the holder's session frees it: the next run waits for ever.
#include <fmt/format.h>

#include "checks/checkers.hpp"
#include "models/trace_kinds.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

void LockLeakFinder::see(const Trace&, const TraceEvent& event, RunMetrics&) {
    const std::uint32_t node = event.node.index;
    if (event.kind == trace_kind::lock_granted) {
        held_[std::string(event.text("key"))] =
            Grant{event.node_ref("holder"), event.node, event.sequence, event.at, event.has("ttl")};
    } else if (event.kind == trace_kind::lock_released || event.kind == trace_kind::lock_expired) {
        const auto found = held_.find(std::string(event.text("key")));
        if (found != held_.end() && found->second.holder == event.node_ref("holder")) held_.erase(found);
    } else if (event.kind == trace_kind::belief_acquired) {
        believing_.insert(node);
    } else if (event.kind == trace_kind::belief_ended) {
        believing_.erase(node);
    } else if (event.kind == trace_kind::node_crashed) {
        believing_.erase(node);
        crashed_.insert(node);
        // A lock in the crashed node's own memory, or in a store that crashed, went with it.
        std::erase_if(held_, [node](const auto& entry) { return entry.second.store.index == node; });
    } else if (event.kind == trace_kind::node_restarted) {
        crashed_.erase(node);
    }
}

void LockLeakFinder::finish(const Trace& trace, Instant, RunMetrics& metrics) {
    for (const auto& [key, grant] : held_) {
        if (grant.leased || believing_.contains(grant.holder.index)) continue;
        const std::string why = crashed_.contains(grant.holder.index) ? "which crashed without releasing it"
                                                                      : "which no longer believed it held it";
        metrics.add(Metric::locks_leaked);
        metrics.flagged.push_back(FlaggedEvent{
            grant.sequence, Metric::locks_leaked,
            fmt::format("{} still held at the end by {} (granted at {}), {}: leaked, nobody else can take it", key,
                        trace.node_name(grant.holder), format_seconds(grant.at), why)});
    }
}

}  // namespace locksim
