#include "reports/fault_text.hpp"

#include <fmt/format.h>

#include "sim/duration_text.hpp"

namespace locksim {
namespace {

std::string describe_strike(const Trace& trace, const FaultStrike& strike) {
    const Instant at = trace.events()[strike.sequence].at;
    if (strike.role == "none") return fmt::format("found no one in its role at {}", format_seconds(at));
    if (strike.role == "network")
        return fmt::format("struck the network at {}: {}", format_seconds(at), strike.was_doing);
    const std::string& name = trace.node_name(strike.target);
    if (strike.was_doing.empty()) return fmt::format("struck {} ({}) at {}", name, strike.role, format_seconds(at));
    return fmt::format("struck {} at {}, which {}", name, format_seconds(at), strike.was_doing);
}

// What to make of it: a holder that went on as before is a design that absorbed the
// fault; a fault that missed the holder needs another target, one that never struck
// another time: its "when" waited for an event that never came, its "at" for a time the
// run did not reach.
std::string advice(const FaultEffect& effect, const DesignOutcome& design) {
    if (effect.reached_the_lock) return " The design absorbed it.";
    for (const auto& strike : effect.struck) {
        if (strike.role == "server") return " To strike whoever holds the lock then, target {\"role\": \"holder\"}.";
        if (strike.role == "network")
            return " To touch the lock, aim it at a link the holder or the store uses while the lock is held (a "
                   "\"when\" can wait for the holder's own event).";
    }
    if (effect.struck.empty() && effect.placed_at)
        return fmt::format(" Check its \"at\": the run ended at {}, before {}.",
                           format_seconds(design.summary.ended_at), format_duration(*effect.placed_at - Instant{}));
    if (effect.struck.empty()) return " Check its \"when\": no event of the run matched it.";
    return "";
}

// "fault 1 (/faults/0) struck server-2 at 6.000s, which was not holding the lock".
std::string what_it_struck(const DesignOutcome& design, const FaultEffect& effect, FaultNaming naming) {
    std::vector<std::string> strikes;
    for (const auto& strike : effect.struck) strikes.push_back(describe_strike(design.trace, strike));
    const std::string what = strikes.empty() ? "never struck" : fmt::format("{}", fmt::join(strikes, "; "));
    if (naming == FaultNaming::number_only) return fmt::format("fault {} {}", effect.fault + 1, what);
    return fmt::format("fault {} (/faults/{}) {}", effect.fault + 1, effect.fault, what);
}

}  // namespace

std::vector<std::string> describe_inert_faults(const DesignOutcome& design, bool only_missed, FaultNaming naming) {
    std::vector<std::string> lines;
    if (!design.faults) return lines;
    for (const auto& effect : design.faults->each) {
        if (!effect.inert() || (only_missed && !effect.missed())) continue;
        const std::string_view same = effect.without_it.no_story_change()
                                          ? "the run without it tells the same story"
                                          : "the run without it counts the same on every safety metric";
        lines.push_back(fmt::format("{}; {}.{}", what_it_struck(design, effect, naming), same, advice(effect, design)));
    }
    return lines;
}

std::string describe_all_inert(const DesignOutcome& design) {
    if (!design.faults || !design.faults->all_missed()) return "";
    return fmt::format(
        "every fault was inert: none reached the lock (its holder, the store while it held one, or a message of "
        "theirs), and without any, design \"{}\" counts the same on every safety metric{}, so its result says "
        "nothing about them",
        design.name, design.faults->held_without_faults ? " and its expectations hold as well" : "");
}

std::string describe_missed_faults(const DesignOutcome& design) {
    if (!design.faults) return "";
    std::vector<std::string> missed;
    for (const auto& effect : design.faults->each)
        if (effect.missed()) missed.push_back(what_it_struck(design, effect, FaultNaming::with_pointer));
    if (const std::size_t drawn = design.faults->drawn_strikes; drawn > 0 && !design.faults->reached_the_lock)
        missed.push_back(fmt::format("{} strike{} of faults drawn from the seed, none of which reached the lock", drawn,
                                     drawn == 1 ? "" : "s"));
    // Faults judged and none of its own: its generators drew none that struck in this run.
    if (design.faults->each.empty() && design.faults->drawn_strikes == 0)
        missed.push_back("no fault was drawn: the design's generators drew none that struck in this run");
    return fmt::format("{}", fmt::join(missed, "; "));
}

}  // namespace locksim
