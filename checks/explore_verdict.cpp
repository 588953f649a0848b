#include "checks/explore_verdict.hpp"

#include <string>
#include <string_view>

#include "checks/run_outcome.hpp"

namespace locksim {
namespace {

ExpectationResult failed_zero(std::string_view total, std::string because, std::int64_t found) {
    Expectation zero{std::string(total), Expectation::Comparison::equals, 0, true};
    zero.implied_because = std::move(because);
    return ExpectationResult{std::move(zero), found, false, ""};
}

}  // namespace

std::vector<ExpectationResult> judge_exploration(const DesignExploration& design, int depth,
                                                 const std::vector<Expectation>& expected) {
    std::vector<ExpectationResult> results =
        evaluate(expected, [&design](std::string_view total) { return design.total(total); });
    const bool counts_placements = names_metric(expected, explore_total::violating_placements) ||
                                   (depth == 1 && names_metric(expected, explore_total::windows));
    if (!counts_placements && design.violating() != 0)
        results.push_back(failed_zero(explore_total::violating_placements,
                                      "placements of the listed sizes that violate, which the design's explore "
                                      "\"expect\" does not count",
                                      design.total(explore_total::violating_placements)));
    if (!names_metric(expected, explore_total::regions) && !design.regions.empty())
        results.push_back(failed_zero(
            explore_total::regions,
            "regions of the faults explored over a range, which the design's explore \"expect\" does not name",
            design.total(explore_total::regions)));
    return results;
}

}  // namespace locksim
