#pragma once
// A sweep's totals as a table for people: per design the runs, those with a violation,
// those cut by their horizon with work pending, double charges, the rate with its 95 %
// interval, and the first failing seeds with the command that replays each.
#include <cstdint>
#include <string>
#include <string_view>

#include "checks/sweep_summary.hpp"

namespace locksim {

// "0.30% (0.14%–0.65%)": a design's violation rate with its 95 % Wilson interval; "—"
// when it ran no seeds.
// `weight`: a probability the rate and its bounds are multiplied by (a given fault's).
std::string rate_with_interval(const DesignTally& tally, double weight = 1.0);

// The largest rate `runs` runs of which `failed` lost something cannot rule out: the upper
// bound of its interval, "1.26%" for none of 300.
std::string rate_not_ruled_out(std::uint64_t failed, std::uint64_t runs);

// What every rate's interval covers, said once under each table of rates.
std::string_view sampling_disclaimer();

// `runs_per_day`: how often the modelled job runs in production (0.5: every other day), to
// turn each rate into expected incidents per day and per year (with the interval); 0 leaves
// them out.
std::string render_sweep_text(const SweepSummary& summary, const std::string& program, bool colour,
                              double runs_per_day = 0);

}  // namespace locksim
