// Every checker reading each event as it is recorded. Their flags are kept apart per
// checker and joined in the checkers' order at the end, then sorted by trace position:
// the same list, in the same order, as running each checker over the whole trace in turn.
#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

#include "checks/checkers.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {

bool read_for_violations(EventKind kind) {
    static constexpr const KindSpec* read[] = {
        // The effects, and what was due: ChargeCounter, SuppressedEffectFinder, FenceChecker,
        // DuplicateWorkMeter, ItemLedger.
        &trace_kind::provider_charged, &trace_kind::provider_replayed, &trace_kind::provider_refused,
        &trace_kind::provider_precondition_failed, &trace_kind::db_rolled_back, &trace_kind::db_write,
        &trace_kind::index_built, &trace_kind::job_due,
        // The locks: ReleaseChecker, LockLeakFinder.
        &trace_kind::lock_granted, &trace_kind::lock_released, &trace_kind::lock_expired, &trace_kind::belief_acquired,
        &trace_kind::belief_ended,
        // Work begun and not finished: PendingWorkFinder.
        &trace_kind::job_started, &trace_kind::job_finished, &trace_kind::job_charge_timed_out,
        &trace_kind::node_crashed, &trace_kind::node_restarted, &trace_kind::node_paused, &trace_kind::node_resumed};
    return std::any_of(std::begin(read), std::end(read), [kind](const KindSpec* one) { return kind == *one; });
}

void RunChecks::read(const Trace& trace, const TraceEvent& event) {
    fault_reach_.read(event);
    // No checker reads a message's sending, arrival or loss, and in a traced run they are
    // most of the events: they go by without asking each checker. (A test runs every
    // checker on its own over whole traces and compares, so a checker that starts reading
    // them is caught.)
    if (trace_kind::is_message(event.kind)) return;
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
    std::apply([&](auto&... checks) { (see(checks), ...); }, checkers_);
}

RunMetrics RunChecks::finish(const Trace& trace, Instant run_end) {
    std::apply([&](auto&... checks) { (checks.finish(trace, run_end, metrics_), ...); }, checkers_);
    // What a checker flags once the run is over (an item never done, work never finished)
    // is known only at the end: that is its time, whichever event it points at.
    for (const FlaggedEvent& flag : metrics_.flagged) flagged_at_.try_emplace(flag.sequence, run_end);
    metrics_.fault_reached_the_lock = fault_reach_.reached_the_lock();
    for (auto& flags : flags_by_checker_)
        metrics_.flagged.insert(metrics_.flagged.end(), std::make_move_iterator(flags.begin()),
                                std::make_move_iterator(flags.end()));
    std::sort(metrics_.flagged.begin(), metrics_.flagged.end(),
              [](const FlaggedEvent& a, const FlaggedEvent& b) { return a.sequence < b.sequence; });
    for (const FlaggedEvent& flag : metrics_.flagged)
        if (flag.violation() &&
            (!metrics_.first_violation || flagged_at_.at(flag.sequence) < *metrics_.first_violation))
            metrics_.first_violation = flagged_at_.at(flag.sequence);
    return std::move(metrics_);
}

}  // namespace locksim
