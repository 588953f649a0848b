#include "runners/sweep_runner.hpp"

#include <cassert>
#include <vector>

#include "runners/parallel_runs.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/given_fault.hpp"

namespace locksim {

namespace {

std::vector<SeedCounts> counts_of_seed(const Scenario& scenario, std::uint64_t seed, const SweepSettings& settings) {
    const ScenarioOutcome outcome =
        run_scenario(scenario, seed, settings.design,
                     RunOptions{.trace_messages = false, .event_limit = settings.event_limit, .keep_trace = false},
                     FaultJudging::off);
    std::vector<SeedCounts> counts;
    for (const auto& design : outcome.designs)
        counts.push_back(seed_counts(seed, design.metrics, design.verdict.violations, design.unfinished()));
    return counts;
}

}  // namespace

std::vector<SeedCounts> sweep_one_seed(const Scenario& scenario, std::uint64_t seed, const SweepSettings& settings) {
    if (!settings.given_fault) return counts_of_seed(scenario, seed, settings);
    Scenario given = scenario;
    give_fault(given, *settings.given_fault, settings.design);
    return counts_of_seed(given, seed, settings);
}

SweepSummary empty_sweep(const Scenario& scenario, SeedBlock seeds, const SweepSettings& settings, bool keep_seeds) {
    SweepSummary total;
    if (settings.given_fault) {
        Scenario given = scenario;
        total.given = give_fault(given, *settings.given_fault, settings.design);
    }
    total.scenario = scenario.name;
    total.file = scenario.file;
    total.seeds = total.covered = seeds;
    total.settings = settings;
    if (!scenario.designs.empty()) total.words = scenario.designs.front().world.vocabulary;
    for (const auto& design : scenario.designs)
        if (!settings.design || design.name == *settings.design) {
            total.designs.push_back(DesignTally{design.name});
            total.designs.back().keeps_seeds = keep_seeds;
        }
    return total;
}

SweepSummary run_sweep(const Scenario& plain, SeedBlock seeds, unsigned threads,
                       const std::function<void(std::uint64_t done)>& progress, const SweepSettings& settings,
                       bool keep_seeds) {
    SweepSummary total = empty_sweep(plain, seeds, settings, keep_seeds);
    Scenario given_scenario;
    if (settings.given_fault) {
        given_scenario = plain;
        give_fault(given_scenario, *settings.given_fault, settings.design);
    }
    const Scenario& scenario = settings.given_fault ? given_scenario : plain;

    // Each worker tallies into its own copy of the empty summary; the copies are merged
    // after the last worker is done. Tallies are sums and failing seeds are kept sorted,
    // so the total does not depend on which worker ran which seed.
    std::vector<SweepSummary> tallies(workers_for(seeds.count, threads), total);
    run_in_parallel(
        seeds.count, threads,
        [&](std::uint64_t k, unsigned worker) {
            const std::vector<SeedCounts> runs = counts_of_seed(scenario, seeds.first + k, settings);
            assert(runs.size() == tallies[worker].designs.size());
            for (std::size_t d = 0; d < runs.size(); ++d) tallies[worker].designs[d].add(runs[d]);
        },
        progress);
    for (const auto& tally : tallies) total.merge_tallies(tally);
    return total;
}

}  // namespace locksim
