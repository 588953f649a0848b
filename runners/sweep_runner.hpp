#pragma once
// Runs one single-threaded simulation per seed, spread over worker threads. Totals do not
// depend on the number of threads: tallies are sums, and failing seeds are kept sorted.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "checks/sweep_summary.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// `progress` is called now and then from the calling thread with the seeds done so far.
SweepSummary run_sweep(const Scenario& scenario, SeedBlock seeds, unsigned threads,
                       const std::function<void(std::uint64_t done)>& progress,
                       std::uint64_t event_limit = Engine::default_event_limit,
                       const std::optional<std::string>& only_design = std::nullopt);

}  // namespace locksim
