#pragma once
// Explore a fault that has a size rather than an end — a clock step's "by" — over a signed
// range of sizes, at every start class of its target (runners/fault_regions.hpp).
//
// What is tried, at each start class's first instant: both ends of the range; 1 ms either
// side of 0 when 0 is inside (a step of 0 is no fault); every whole second of the range;
// and, for each event of the target in the run without faults after that instant, at a
// distance d within the range, the sizes ±d and ±(d + 1 ms) rounded down and up to whole
// milliseconds (a step moves the wall clock onto or past the instant a wall-clock alarm
// set to that event's time would fire). Wherever two neighbouring tried sizes took
// different branches (runners/run_branches.hpp: along one set of branches every instant is
// an affine function of the size, so the sizes of one set are an interval), whole
// milliseconds between them are bisected until each change is found to 1 ms.
//
// What that does NOT prove, and the output must not claim:
//   - Other starts inside a class are not assumed to behave like its first instant: a
//     forward step fires wall-clock alarms at the step's own instant (sim/host.hpp's
//     wall-clock sleeps resume then), so a later step in the same quiet gap may act later.
//     tests/size_regions_test.cpp measured no difference on redis-clock-jump.json and
//     wall-clock-durations.json, but a measurement is not a proof: a region's start is only
//     the instant actually tried, and regions of neighbouring classes are never joined.
//   - Sizes between two neighbouring segments (less than 1 ms apart) belong to no region:
//     nothing is claimed for them.
#include <vector>

#include "checks/exploration.hpp"
#include "runners/fault_regions.hpp"

namespace locksim {

// Searches the sizes of `classes`, some of the family's (which has `size_range`): one
// outcome per class with its segments of sizes and its runs.
std::vector<UnitOutcome> search_size_classes(const DesignExploration& design, std::size_t family,
                                             const std::vector<StartClass>& classes, const RegionSearch& search);

// The runs searching one start class of a family over a range of sizes will take at
// least (search_size_classes counts the same); planned from the run without faults, so
// nothing runs here.
std::uint64_t size_class_runs_planned(const DesignExploration& design, std::size_t family, const StartClass& starts,
                                      const RegionSearch& search);

// The violating regions of the family, from every one of its start classes and their
// outcomes, in node, start and size order: one per violating segment of sizes, at the
// class's first instant only.
std::vector<FaultRegion> size_regions(const DesignExploration& design, std::size_t family,
                                      const std::vector<StartClass>& classes, const std::vector<UnitOutcome>& outcomes);

}  // namespace locksim
