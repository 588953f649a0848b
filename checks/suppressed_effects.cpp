// "Every due charge is made": lost work, the mirror of a double charge. An idempotency key
// is a promise that two requests are the same piece of work; a key that names less than
// the work (`batch-{customer}` in a job that runs every minute) makes the provider answer
// this minute's charge with last minute's:
//  1. run 1 charges customer 42 with key batch-42: charge 1, for period #1;
//  2. run 2 sends customer 42's charge for period #2, with key batch-42 again;
//  3. the provider has seen batch-42 and returns charge 1: no money moves, and the job
//     records period #2 as charged.
// Nothing is charged twice, so the double-charge checker sees nothing; a report that took
// every replay for a protection would draw step 3 as one. The replay names the charge it
// returned and what that charge was for: a replay of the same customer and period is the
// key at work (a retry, a second holder), one of another is an effect suppressed.
#include "checks/suppressed_effects.hpp"

#include <fmt/format.h>

#include "checks/checkers.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"

namespace locksim {

bool replays_another_effect(const TraceEvent& replayed) {
    return replayed.integer("charge_customer") != replayed.integer("customer") ||
           replayed.text("charge_period") != replayed.text("period");
}

std::string returned_effect_for(const TraceEvent& replayed, const Vocabulary& words) {
    const std::int64_t customer = replayed.integer("charge_customer");
    if (customer == replayed.integer("customer")) return fmt::format("for {}", replayed.text("charge_period"));
    return fmt::format("for {} {} in {}", words.item, customer, replayed.text("charge_period"));
}

void SuppressedEffectFinder::see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics) {
    if (event.kind == trace_kind::provider_charged) {
        done_.insert({event.integer("customer"), std::string(event.text("period"))});
        return;
    }
    if (event.kind != trace_kind::provider_replayed) return;
    const Effect due{event.integer("customer"), event.text("period")};
    // A replay of its own charge, or of another when its own was already made, lost nothing.
    if (!replays_another_effect(event) || done_.contains(due)) return;
    // Its retries are replayed the same way: the effect is suppressed once.
    if (!suppressed_.insert(due).second) return;
    metrics.add(Metric::suppressed_effects);
    const Vocabulary words = vocabulary_of(trace);
    metrics.flagged.push_back(FlaggedEvent{
        event.sequence, Metric::suppressed_effects,
        fmt::format("{} {} not {} for {}: the {} returned {} {}, made {}, because key {} does not tell them apart",
                    words.item, due.first, words.effected(), due.second, words.provider, words.effect,
                    event.integer("charge"), returned_effect_for(event, words), event.text("key"))});
}

}  // namespace locksim
