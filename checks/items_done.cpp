// At least once: every item a due run of the job was meant to do, done by the run's end.
// A crashed owner, a claim nobody takes back, a job hung on a lost reply: whatever kept an
// item from being done, the item is counted here, in the scenario's words ("seller 104
// never paid for 2026-10").
#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <string>
#include <vector>

#include "checks/checkers.hpp"
#include "models/item_ranges.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"

namespace locksim {
namespace {

// "customer 44", "customers 44, 45 and 46", "customers 44, 45, 46, 47, 48 and 19 more".
std::string named_items(const std::vector<std::int64_t>& ids, const Vocabulary& words) {
    constexpr std::size_t named = 5;
    if (ids.size() == 1) return fmt::format("{} {}", words.item, ids.front());
    std::vector<std::string> shown;
    for (std::size_t i = 0; i < std::min(named, ids.size()); ++i) shown.push_back(std::to_string(ids[i]));
    if (ids.size() > named)
        return fmt::format("{} {} and {} more", words.items(), fmt::join(shown, ", "), ids.size() - named);
    const std::string last = shown.back();
    shown.pop_back();
    return fmt::format("{} {} and {}", words.items(), fmt::join(shown, ", "), last);
}

}  // namespace

void ItemLedger::see(const Trace&, const TraceEvent& event, RunMetrics&) {
    if (event.kind == trace_kind::job_due) {
        DueRun run{event.sequence, std::string(event.text("period")), std::nullopt};
        if (event.has("items")) run.items = std::string(event.text("items"));
        due_.push_back(std::move(run));
    } else if (event.kind == trace_kind::provider_charged) {
        charged_.emplace(event.integer("customer"), std::string(event.text("period")));
    } else if (event.kind == trace_kind::index_built) {
        built_.emplace(event.text("period"));
    }
}

void ItemLedger::finish(const Trace& trace, Instant, RunMetrics& metrics) {
    if (due_.empty()) return;
    const Vocabulary words = vocabulary_of(trace);
    for (const DueRun& run : due_) {
        std::vector<std::int64_t> undone;
        std::string explanation;
        if (run.items) {
            const auto items = parse_item_ranges(*run.items);
            assert(items.has_value());  // the world writes them with format_item_ranges
            for (const std::int64_t item : *items)
                if (!charged_.contains({item, run.period})) undone.push_back(item);
            if (undone.empty()) continue;
            explanation = fmt::format("{} never {} for {}", named_items(undone, words), words.effected(), run.period);
        } else {
            if (built_.contains(run.period)) continue;
            undone.push_back(0);
            explanation = fmt::format("the index for {} was never built", run.period);
        }
        metrics.add(Metric::items_not_done, static_cast<std::int64_t>(undone.size()));
        metrics.flagged.push_back(FlaggedEvent{run.sequence, Metric::items_not_done, std::move(explanation)});
    }
}

}  // namespace locksim
