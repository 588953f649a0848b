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
#include "models/effect_steps.hpp"
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
        if (event.has("step_names")) run.step_names = step_names_of(event.text("step_names"));
        due_.push_back(std::move(run));
    } else if (event.kind == trace_kind::provider_charged) {
        const std::int64_t step = event.has("step") ? event.integer("step") : 1;
        charged_.emplace(event.integer("customer"), std::string(event.text("period")), step);
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
            // Never begun, or left half done: an effect of several steps is done when all are.
            std::vector<std::int64_t> half_done;
            std::int64_t first_missing_step = 0;
            for (const std::int64_t item : *items) {
                if (!charged_.contains({item, run.period, 1})) {
                    undone.push_back(item);
                    continue;
                }
                for (std::int64_t step = 2; step <= static_cast<std::int64_t>(run.step_names.size()); ++step) {
                    if (charged_.contains({item, run.period, step})) continue;
                    half_done.push_back(item);
                    if (first_missing_step == 0) first_missing_step = step;
                    break;
                }
            }
            if (undone.empty() && half_done.empty()) continue;
            std::vector<std::string> parts;
            if (!undone.empty())
                parts.push_back(
                    fmt::format("{} never {} for {}", named_items(undone, words), words.effected(), run.period));
            if (!half_done.empty())
                parts.push_back(fmt::format("{} left half done for {} (never: {})", named_items(half_done, words),
                                            run.period, step_name(run.step_names, first_missing_step)));
            explanation = fmt::format("{}", fmt::join(parts, "; "));
            undone.insert(undone.end(), half_done.begin(), half_done.end());
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
