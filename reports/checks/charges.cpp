// "One charge per customer and period": counted from the provider's charge events,
// whatever the designs intended.
#include <fmt/format.h>

#include <map>
#include <utility>

#include "models/trace_kinds.hpp"
#include "reports/checks/metrics.hpp"

namespace locksim {

void count_charges(const Trace& trace, RunMetrics& metrics) {
    std::map<std::pair<std::int64_t, std::string>, std::int64_t> charges;
    for (const auto& event : trace.events()) {
        if (event.kind != trace_kind::provider_charged) continue;
        ++metrics.charges;
        const std::int64_t count = ++charges[{event.integer("customer"), event.text("period")}];
        if (count > 1)
            metrics.flagged.push_back(FlaggedEvent{
                event.sequence, true,
                fmt::format("customer {} charged a {} time for {}", event.integer("customer"),
                            count == 2 ? "second" : fmt::format("{}th", count), event.text("period"))});
    }
    for (const auto& [renewal, count] : charges)
        if (count > 1) metrics.double_charged.push_back(DoubleCharge{renewal.first, renewal.second, count});
}

}  // namespace locksim
