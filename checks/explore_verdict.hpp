#pragma once
// Explore's verdict on a design its block's "expect" names: the file's expectations of the
// exploration's totals, then an implied zero for each part of what was explored that none
// of them counts, so that a gate never passes beside violations it did not look at.
//
//  - The placements of the listed sizes are counted by `violating_placements`, and at depth
//    1 by `windows` too (a window is a run of violating placements; pairs make none).
//  - The faults explored over a range are counted by `regions`.
//  - A part that no expectation counts must find nothing: its violating placements, or its
//    regions, fail the design as that total expected 0, as a run's undeclared violation
//    fails the run (checks/verdict.hpp). `placements` counts what was tried, not what
//    broke, so it vouches for neither.
//
// Each total keeps its own unit: a region (every start against every end of a rectangle)
// is not a placement, so the two are never summed into one number.
#include <vector>

#include "checks/expectations.hpp"
#include "checks/exploration.hpp"

namespace locksim {

// The file's expectations of the design, judged, followed by the implied ones that failed.
std::vector<ExpectationResult> judge_exploration(const DesignExploration& design, int depth,
                                                 const std::vector<Expectation>& expected);

}  // namespace locksim
