#pragma once
// A scenario whose faults are drawn at random teaches a rate, not one run: its report
// draws one seed's run as one of many and shows, per design, how often a run of a sweep
// lost something, with the interval.
#include <cstdint>
#include <optional>
#include <string>

#include "checks/sweep_summary.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// Seeds a report sweeps when the file has no "sweep" block of its own.
constexpr std::uint64_t default_report_seeds = 200;

// Whether any design draws faults at random ("fault_generators"): one run is one draw.
bool teaches_a_rate(const Scenario& scenario);

// The sweep of a scenario that teaches a rate, over its sweep block's seeds (or
// default_report_seeds from seed 1), on `threads` threads (results never depend on them);
// nullopt for one that does not. `design`: only that one.
std::optional<LessonRates> lesson_rates(const Scenario& scenario, const std::string& program, unsigned threads,
                                        std::uint64_t event_limit, const std::optional<std::string>& design = {});

}  // namespace locksim
