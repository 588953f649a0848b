#pragma once
// Systematic fault placement: for each design, the run without the file's faults gives
// the points where a fault can strike; every fault of the file's "explore" block is then
// tried at every one of them (or every pair, at depth 2), each in a run of its own.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks/exploration.hpp"
#include "runners/fault_regions.hpp"
#include "scenarios/schema/scenario.hpp"
#include "sim/engine.hpp"

namespace locksim {

// The exploration asked for cannot be done (too many placements, a size that resolves
// to nothing): the message says why and what to change.
class ExploreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ExploreOptions {
    std::optional<std::string> design;  // only this one (the caller has checked it exists)
    std::optional<std::uint64_t> seed;  // instead of the file's
    unsigned threads = 1;
    std::uint64_t event_limit = Engine::default_event_limit;
    // Run each set of equivalent placements once (checks/equivalent_placements.hpp); false
    // runs every placement, to measure the saving or check it.
    bool prune = true;
    // Called now and then with the placements done and the total, over all designs.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress = [](std::uint64_t, std::uint64_t) {};
    // Called once, when the exploration is planned and before the bulk of its runs, with
    // the placements and start classes this process will run (all of them unsharded).
    std::function<void(std::uint64_t placements, std::uint64_t start_classes)> planned = [](std::uint64_t,
                                                                                            std::uint64_t) {};
    // Shard `shard` of `shards` (from 1) runs only its block of the units (below).
    std::uint32_t shard = 1;
    std::uint32_t shards = 1;
    // The region runs one exploration (or shard) may plan and make (runners/fault_regions.hpp);
    // lower only in tests.
    std::uint64_t region_run_limit = max_region_runs;
    // The events one exploration (or shard) may process, counted before it runs
    // (max_explore_events; lower only in tests).
    std::uint64_t event_budget = max_explore_events;
    // The outcome of every unit, from the shards `merge` joins: then nothing runs but the
    // runs without faults that plan the exploration.
    const std::vector<UnitOutcome>* given = nullptr;
};

// The scenario must have an "explore" block.
Exploration run_explore(const Scenario& scenario, const ExploreOptions& options);

// The work of an exploration is a list of independent units, in one order over designs,
// then per design its placements that run (in the order planned), then per family explored
// over a range its start classes (runners/fault_regions.hpp). A shard runs one contiguous
// block of them (shard_block): these are its outcomes. run_explore with `given` refuses
// (ExploreError) outcomes that are not one per unit.
struct ExploreUnits {
    Exploration exploration;  // planned only: no outcomes, windows or regions
    std::uint64_t total = 0;  // units of the whole exploration
    std::uint64_t first = 0;  // this shard's
    std::vector<UnitOutcome> outcomes;
};
ExploreUnits run_explore_shard(const Scenario& scenario, const ExploreOptions& options);

// The units `units` (indices into the exploration's list) run again, as a shard of
// `options` runs them: their outcomes, in the order given. For `merge --verify`.
std::vector<UnitOutcome> rerun_units(const Scenario& scenario, const ExploreOptions& options,
                                     const std::vector<std::uint64_t>& units);

}  // namespace locksim
