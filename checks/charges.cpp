// "One charge per customer and period": counted from the provider's charge events,
// whatever the designs intended.
#include <fmt/format.h>

#include <map>
#include <set>
#include <utility>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"

namespace locksim {

void count_charges(const Trace& trace, RunMetrics& metrics) {
    const Vocabulary words = vocabulary_of(trace);
    std::map<std::pair<std::int64_t, std::string>, std::int64_t> charges;
    for (const auto& event : trace.events()) {
        if (event.kind != trace_kind::provider_charged) continue;
        ++metrics.charges;
        const std::int64_t count = ++charges[{event.integer("customer"), event.text("period")}];
        if (count > 1)
            metrics.flagged.push_back(FlaggedEvent{
                event.sequence, true,
                fmt::format("{} {} {} a {} time for {}", words.item, event.integer("customer"), words.effected(),
                            count == 2 ? "second" : fmt::format("{}th", count), event.text("period")),
                "double_charges"});
    }
    for (const auto& [renewal, count] : charges)
        if (count > 1) metrics.double_charged.push_back(DoubleCharge{renewal.first, renewal.second, count});
}

}  // namespace locksim

namespace locksim {

// "One renewal row per customer and period", at the database: the row set to charged by
// one server and then again by another is the renewal applied twice, whatever the
// provider did with the money. Counted, not flagged: the second write sets the same
// status, so whether it hurt is the money's question (double charges, which are flagged).
void count_double_applies(const Trace& trace, RunMetrics& metrics) {
    std::map<std::pair<std::int64_t, std::string>, std::set<std::uint32_t>> writers;
    for (const auto& event : trace.events()) {
        if (event.kind != trace_kind::db_write || event.text("status") != "charged" || event.integer("rows") == 0)
            continue;
        auto& by = writers[{event.integer("customer"), event.text("period")}];
        if (by.insert(event.node_ref("client").index).second && by.size() >= 2) ++metrics.double_applies;
    }
}

}  // namespace locksim
