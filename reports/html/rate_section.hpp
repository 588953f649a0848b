#pragma once
// The page of a scenario that teaches a rate leads with it: per design, how many runs of a
// sweep lost something, with the 95 % interval, and the seed the figures draw named as one
// run of them.
#include <cstdint>
#include <string>

#include "checks/sweep_summary.hpp"

namespace locksim {

// "How often" and its table: every design of the sweep, the seeds it covers, where they
// came from, how to replay a failing one and how to reproduce the totals.
std::string render_rate_section(const LessonRates& rates, std::uint64_t drawn_seed);

// A design's outcome over the sweep, as a badge: "lost in 47 of 2000 runs" (red), "nothing
// lost in 2000 runs" (green), or, when runs were cut by the horizon with nothing lost in
// the rest, "cut short in 3 of 2000 runs" (grey): never green without every run counted.
std::string rate_verdict(const DesignTally& tally);

}  // namespace locksim
