// Every checker reading each event as it is recorded. Their flags are kept apart per
// checker and joined in the checkers' order at the end, then sorted by trace position:
// the same list, in the same order, as running each checker over the whole trace in turn.
#include <algorithm>
#include <array>
#include <vector>

#include "checks/checkers.hpp"

namespace locksim {

void RunChecks::read(const Trace& trace, const TraceEvent& event) {
    // No checker reads a message's sending, arrival or loss, and in a traced run they are
    // most of the events: they go by without asking each checker. (A test runs every
    // checker on its own over whole traces and compares, so a checker that starts reading
    // them is caught.)
    if (event.kind.starts_with("message.")) return;
    std::size_t checker = 0;
    const auto see = [&](auto& check) {
        const std::size_t before = metrics_.flagged.size();
        check.see(trace, event, metrics_);
        if (metrics_.flagged.size() == before) {
            ++checker;
            return;
        }
        flagged_at_[event.sequence] = event.at;
        auto& mine = flags_by_checker_[checker++];
        mine.insert(mine.end(), std::make_move_iterator(metrics_.flagged.begin() + static_cast<std::ptrdiff_t>(before)),
                    std::make_move_iterator(metrics_.flagged.end()));
        metrics_.flagged.resize(before);
    };
    see(charges_);
    see(overlaps_);
    see(fences_);
    see(releases_);
    see(wakeups_);
    see(finish_);
    see(retry_storms_);
    see(double_applies_);
    see(duplicate_work_);
    see(waits_);
}

RunMetrics RunChecks::finish(const Trace& trace, Instant run_end) {
    charges_.finish(trace, run_end, metrics_);
    overlaps_.finish(trace, run_end, metrics_);
    fences_.finish(trace, run_end, metrics_);
    releases_.finish(trace, run_end, metrics_);
    wakeups_.finish(trace, run_end, metrics_);
    finish_.finish(trace, run_end, metrics_);
    retry_storms_.finish(trace, run_end, metrics_);
    double_applies_.finish(trace, run_end, metrics_);
    duplicate_work_.finish(trace, run_end, metrics_);
    waits_.finish(trace, run_end, metrics_);
    for (auto& flags : flags_by_checker_)
        metrics_.flagged.insert(metrics_.flagged.end(), std::make_move_iterator(flags.begin()),
                                std::make_move_iterator(flags.end()));
    std::sort(metrics_.flagged.begin(), metrics_.flagged.end(),
              [](const FlaggedEvent& a, const FlaggedEvent& b) { return a.sequence < b.sequence; });
    const auto first = std::find_if(metrics_.flagged.begin(), metrics_.flagged.end(),
                                    [](const FlaggedEvent& f) { return f.violation; });
    if (first != metrics_.flagged.end()) metrics_.first_violation = flagged_at_.at(first->sequence);
    return std::move(metrics_);
}

}  // namespace locksim
