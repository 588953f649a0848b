// "Tokens accepted by a resource only increase": per row of the renewals table, the
// highest token that has changed it so far. A fenced write carrying a lower token is
// stale: refused (rows = 0) is the fence working, accepted (rows = 1) is a bug.
#include <fmt/format.h>

#include <map>
#include <utility>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"

namespace locksim {

void check_fencing(const Trace& trace, RunMetrics& metrics) {
    const Vocabulary words = vocabulary_of(trace);
    std::map<std::pair<std::int64_t, std::string>, std::int64_t> highest_token;
    for (const auto& event : trace.events()) {
        if (event.kind != trace_kind::db_write || !event.has("token")) continue;
        const auto row = std::make_pair(event.integer("customer"), event.text("period"));
        const std::int64_t token = event.integer("token");
        const bool changed = event.integer("rows") > 0;
        auto seen = highest_token.find(row);
        const bool stale = seen != highest_token.end() && token < seen->second;
        if (stale) {
            ++(changed ? metrics.stale_writes_accepted : metrics.stale_writes_rejected);
            metrics.flagged.push_back(FlaggedEvent{event.sequence, changed,
                                                   fmt::format("{}: token {} came after token {} had written {} {}",
                                                               changed ? "stale write ACCEPTED" : "stale write refused",
                                                               token, seen->second, words.item, row.first),
                                                   changed ? "stale_writes_accepted" : "stale_writes_rejected"});
        }
        if (changed && (seen == highest_token.end() || token > seen->second)) highest_token[row] = token;
    }
}

}  // namespace locksim
