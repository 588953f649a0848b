// "Tokens accepted by a resource only increase": per row of the renewals table, the
// highest token that has changed it so far, and for the payment provider the highest
// token any charge carried. A fenced write carrying a lower token is stale: refused is the
// fence working, accepted is a bug.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"

namespace locksim {

namespace {

// One resource's record of the highest token that has written it.
class TokenFence {
public:
    // The highest token before this one, if this one is below it.
    std::optional<std::int64_t> stale(std::int64_t token) const {
        if (highest_ && token < *highest_) return highest_;
        return std::nullopt;
    }
    void accepted(std::int64_t token) {
        if (!highest_ || token > *highest_) highest_ = token;
    }

private:
    std::optional<std::int64_t> highest_;
};

void flag_stale(RunMetrics& metrics, const TraceEvent& event, bool accepted, std::string what) {
    ++(accepted ? metrics.stale_writes_accepted : metrics.stale_writes_rejected);
    metrics.flagged.push_back(
        FlaggedEvent{event.sequence, accepted,
                     fmt::format("{}: {}", accepted ? "stale write ACCEPTED" : "stale write refused", what),
                     accepted ? "stale_writes_accepted" : "stale_writes_rejected"});
}

}  // namespace

void check_fencing(const Trace& trace, RunMetrics& metrics) {
    const Vocabulary words = vocabulary_of(trace);
    std::map<std::pair<std::int64_t, std::string>, TokenFence> rows;
    TokenFence provider;
    for (const auto& event : trace.events()) {
        if (!event.has("token")) continue;
        if (event.kind == trace_kind::db_write) {
            const auto row = std::make_pair(event.integer("customer"), event.text("period"));
            const std::int64_t token = event.integer("token");
            const bool changed = event.integer("rows") > 0;
            TokenFence& fence = rows[row];
            if (const auto before = fence.stale(token))
                flag_stale(metrics, event, changed,
                           fmt::format("token {} came after token {} had written {} {}", token, *before, words.item,
                                       row.first));
            if (changed) fence.accepted(token);
        } else if (event.kind == trace_kind::provider_charged || event.kind == trace_kind::provider_refused) {
            const std::int64_t token = event.integer("token");
            const bool charged = event.kind == trace_kind::provider_charged;
            if (const auto before = provider.stale(token))
                flag_stale(metrics, event, charged,
                           fmt::format("token {} had already reached the {}", *before, words.provider));
            if (charged) provider.accepted(token);
        }
    }
}

}  // namespace locksim
