#pragma once
// `locksim merge --verify K`: the only defence against a shard file that was edited, or run
// from another scenario and given the right SHA-256. A shard's totals are the sums of the
// counts it keeps for each of its runs (checks/sweep_summary.hpp), and merge checks that
// they add up; here some of those runs are run again, and each must count exactly what the
// shard says it did. Per shard, K seeds: its failing seeds first (a failure claimed must
// be a failure), then seeds spread evenly over the rest of its block (a clean run claimed
// must be clean), the same K seeds on every machine and at every merge.
#include <cstdint>
#include <string>
#include <vector>

#include "checks/sweep_merge.hpp"
#include "runners/explore_runner.hpp"

namespace locksim {

// What --verify K reruns of a block, in the order it reruns them: the `flagged` (ascending,
// inside the block) from the first, then, for the rest of K, the others of the block
// spread evenly (the j-th of m at the middle of the j-th of m equal parts of them). All of
// the block when K covers it.
std::vector<std::uint64_t> verify_sample(SeedBlock block, std::vector<std::uint64_t> flagged, std::uint64_t k);

// The seeds of a sweep's `shard` that --verify K reruns: those at which any design had a
// violation, then seeds spread over the rest of its block (verify_sample).
std::vector<std::uint64_t> seeds_to_verify(const SweepSummary& shard, std::uint64_t k);

struct VerifiedShards {
    std::uint64_t shards = 0;
    std::uint64_t seeds = 0;    // rerun, over all the shards
    std::uint64_t failing = 0;  // of those, seeds the shards recorded a violation at
    std::uint64_t runs = 0;     // seeds times their designs
};

// Reruns `k` seeds of each complete sweep shard of `files` with the scenario they name, as
// it is now, on `threads` threads. Throws SweepError when the shards cannot be verified by
// this build (another locksim, a scenario or file of samples changed since, a shard that
// keeps no per-seed counts) or when a run does not count what its shard recorded; a
// ScenarioError when the scenario is unreadable. `version` and `commit`: this build's.
VerifiedShards verify_sweep_shards(const ShardFiles& files, std::uint64_t k, unsigned threads,
                                   const std::string& version, const std::string& commit);

// The same for explore shards, by units of the exploration (a placement's run, a start
// class's search): per shard, its units that broke a design first, then units spread over
// its block, rerun as `options` explores `scenario` (the file the shards explored, which
// the caller has checked, with this build). `seeds` and `failing` count units.
VerifiedShards verify_explore_shards(const ShardFiles& files, const Scenario& scenario, const ExploreOptions& options,
                                     std::uint64_t k);

}  // namespace locksim
