// "Tokens accepted by a resource only increase": per row of the renewals table, the
// highest token that has changed it so far, and for the payment provider the highest
// token any charge carried. A fenced write carrying a lower token is stale: refused is the
// fence working, accepted is a bug.
#include <fmt/format.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

#include "checks/checkers.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

namespace {

// One resource's record of the highest token that has written it, if any.
using Highest = std::optional<std::int64_t>;

// The highest token before this one, if this one is below it.
Highest stale(const Highest& highest, std::int64_t token) {
    if (highest && token < *highest) return highest;
    return std::nullopt;
}
void accepted(Highest& highest, std::int64_t token) {
    if (!highest || token > *highest) highest = token;
}

void flag_stale(RunMetrics& metrics, const TraceEvent& event, bool accepted, std::string what) {
    const Metric metric = accepted ? Metric::stale_writes_accepted : Metric::stale_writes_rejected;
    metrics.add(metric);
    metrics.flagged.push_back(
        FlaggedEvent{event.sequence, metric,
                     fmt::format("{}: {}", accepted ? "stale write ACCEPTED" : "stale write refused", what)});
}

// A claim refused with a token no lower than the row's: the same token again, or a newer
// one under claim-once, where a row already claimed or charged is claimed once.
// `written`: "written by server-1 at 8.017s", who gave the row its token.
void flag_refused_claim(RunMetrics& metrics, const TraceEvent& event, const Highest& fence, std::int64_t token,
                        const std::string& row, const std::string& written) {
    if (fence && token == *fence) {
        metrics.add(Metric::equal_tokens_refused);
        metrics.flagged.push_back(FlaggedEvent{
            event.sequence, Metric::equal_tokens_refused,
            fmt::format("claim refused: {}'s row already carried token {}{}, and a claim needs a newer one", row, token,
                        written.empty() ? "" : ", " + written)});
        return;
    }
    metrics.add(Metric::claims_refused_once);
    metrics.flagged.push_back(FlaggedEvent{
        event.sequence, Metric::claims_refused_once,
        fmt::format("claim refused: {}'s row was already claimed or charged, and is claimed once (token {} is above "
                    "{})",
                    row, token, fence ? fmt::format("its token {}", *fence) : std::string("any it carried"))});
}

// Who gave the row its token, and when: "written by server-1 at 8.017s".
template <class Row, class Write>
std::string written_by(const Trace& trace, const std::map<Row, Write>& writes, const Row& row) {
    const auto found = writes.find(row);
    if (found == writes.end()) return "";
    const Write& write = found->second;
    if (!write.client) return fmt::format("written at {}", format_seconds(write.at));
    return fmt::format("written by {} at {}", trace.node_name(*write.client), format_seconds(write.at));
}

// A conditional write refused: "index of tenant 7 changed since compactor-2 read it".
void flag_changed_since_read(const Trace& trace, const TraceEvent& event, RunMetrics& metrics) {
    const Vocabulary words = vocabulary_of(trace);
    metrics.add(Metric::conditional_writes_refused);
    metrics.flagged.push_back(FlaggedEvent{
        event.sequence, Metric::conditional_writes_refused,
        fmt::format("conditional write refused: {} of {} {} changed since {} read it (version {}, by {})", words.record,
                    words.item, event.integer("customer"), trace.node_name(event.node_ref("by")),
                    event.integer("version"), trace.node_name(event.node_ref("changed_by")))});
}

}  // namespace

void FenceChecker::see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics) {
    if (event.kind == trace_kind::provider_precondition_failed) {
        flag_changed_since_read(trace, event, metrics);
        return;
    }
    if (!event.has("token")) return;
    if (event.kind == trace_kind::db_write) {
        const auto row = std::make_pair(event.integer("customer"), std::string(event.text("period")));
        const std::int64_t token = event.integer("token");
        const bool changed = event.integer("rows") > 0;
        Highest& fence = rows_[row];
        if (const auto before = stale(fence, token))
            flag_stale(metrics, event, changed,
                       fmt::format("token {} came after token {} had written {} {}", token, *before,
                                   vocabulary_of(trace).item, row.first));
        else if (!changed && event.text("status") == "claimed")
            flag_refused_claim(metrics, event, fence, token, fmt::format("{} {}", vocabulary_of(trace).item, row.first),
                               written_by(trace, written_by_, row));
        if (changed) {
            accepted(fence, token);
            written_by_[row] = {event.has("client") ? std::optional(event.node_ref("client")) : std::nullopt, event.at};
        }
    } else if (event.kind == trace_kind::provider_charged || event.kind == trace_kind::provider_refused) {
        const std::int64_t token = event.integer("token");
        const bool charged = event.kind == trace_kind::provider_charged;
        if (const auto before = stale(provider_, token))
            flag_stale(metrics, event, charged,
                       fmt::format("token {} had already reached the {}", *before, vocabulary_of(trace).provider));
        if (charged) accepted(provider_, token);
    }
}

}  // namespace locksim
