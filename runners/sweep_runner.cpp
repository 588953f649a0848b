#include "runners/sweep_runner.hpp"

#include <cassert>
#include <vector>

#include "runners/parallel_runs.hpp"
#include "runners/scenario_runner.hpp"

namespace locksim {

SweepSummary run_sweep(const Scenario& scenario, SeedBlock seeds, unsigned threads,
                       const std::function<void(std::uint64_t done)>& progress, std::uint64_t event_limit,
                       const std::optional<std::string>& only_design) {
    SweepSummary total;
    total.scenario = scenario.name;
    total.file = scenario.file;
    total.seeds = total.covered = seeds;
    if (!scenario.designs.empty()) total.words = scenario.designs.front().world.vocabulary;
    for (const auto& design : scenario.designs)
        if (!only_design || design.name == *only_design) total.designs.push_back(DesignTally{design.name});

    // Each worker tallies into its own copy of the empty summary; the copies are merged
    // after the last worker is done. Tallies are sums and failing seeds are kept sorted,
    // so the total does not depend on which worker ran which seed.
    std::vector<SweepSummary> tallies(workers_for(seeds.count, threads), total);
    run_in_parallel(
        seeds.count, threads,
        [&](std::uint64_t k, unsigned worker) {
            const std::uint64_t seed = seeds.first + k;
            const ScenarioOutcome outcome =
                run_scenario(scenario, seed, only_design,
                             RunOptions{.trace_messages = false, .event_limit = event_limit, .keep_trace = false},
                             FaultJudging::off);
            assert(outcome.designs.size() == tallies[worker].designs.size());
            for (std::size_t d = 0; d < outcome.designs.size(); ++d)
                tallies[worker].designs[d].add(seed, outcome.designs[d].metrics, outcome.designs[d].verdict.violations,
                                               outcome.designs[d].unfinished());
        },
        progress);
    for (const auto& tally : tallies) total.merge_tallies(tally);
    return total;
}

}  // namespace locksim
