#pragma once
// A sweep's totals as a table for people: per design the runs, those with a violation,
// double charges, the rate with its 95 % interval, and the first failing seeds with the
// command that replays each.
#include <string>

#include "checks/sweep_summary.hpp"

namespace locksim {

// `runs_per_day`: how often the modelled job runs in production, to turn each rate into
// expected incidents per day and per year (with the interval); 0 leaves them out.
std::string render_sweep_text(const SweepSummary& summary, const std::string& program, bool colour,
                              std::uint64_t runs_per_day = 0);

}  // namespace locksim
