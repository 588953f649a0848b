#pragma once
// A sweep's totals as a table for people: per design the runs, those with a violation,
// double charges, the rate with its 95 % interval, and the first failing seeds with the
// command that replays each.
#include <string>

#include "checks/sweep_summary.hpp"

namespace locksim {

std::string render_sweep_text(const SweepSummary& summary, const std::string& program, bool colour);

}  // namespace locksim
