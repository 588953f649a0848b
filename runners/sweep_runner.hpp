#pragma once
// Runs one single-threaded simulation per seed, spread over worker threads. Totals do not
// depend on the number of threads: tallies are sums, and failing seeds are kept sorted.
#include <cstdint>
#include <functional>
#include <vector>

#include "checks/sweep_summary.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// `progress` is called now and then from the calling thread with the seeds done so far.
// With settings.given_fault every run is drawn given that generator strikes (and a
// GivenFaultError says why it cannot be).
// `keep_seeds`: each design keeps the counts of every run that counted anything
// (DesignTally::seeds_counted), as a shard does for `merge`.
SweepSummary run_sweep(const Scenario& scenario, SeedBlock seeds, unsigned threads,
                       const std::function<void(std::uint64_t done)>& progress, const SweepSettings& settings = {},
                       bool keep_seeds = false);

// What a sweep of `settings` is before any run: the scenario's name, file and words, the
// designs it runs with every total 0, and the given fault with the probability that weighs
// it. What `merge --verify` recomputes of a shard besides its runs. Throws GivenFaultError
// as run_sweep does.
SweepSummary empty_sweep(const Scenario& scenario, SeedBlock seeds, const SweepSettings& settings,
                         bool keep_seeds = false);

// What one seed's run of each design a sweep of `settings` runs adds to its totals, in
// the order of the scenario's designs: what a sweep counts of that seed.
std::vector<SeedCounts> sweep_one_seed(const Scenario& scenario, std::uint64_t seed, const SweepSettings& settings);

}  // namespace locksim
