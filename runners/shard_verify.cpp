#include "runners/shard_verify.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "checks/explore_shard.hpp"
#include "checks/metrics.hpp"
#include "runners/parallel_runs.hpp"
#include "runners/sweep_runner.hpp"
#include "scenarios/schema/given_fault.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/wide_int.hpp"

namespace locksim {
namespace {

// What `tally` recorded of `seed`: its row, or a run that counted nothing.
SeedCounts recorded(const DesignTally& tally, std::uint64_t seed) {
    const auto row = std::lower_bound(tally.seeds_counted.begin(), tally.seeds_counted.end(), seed,
                                      [](const SeedCounts& run, std::uint64_t s) { return run.seed < s; });
    return row != tally.seeds_counted.end() && row->seed == seed ? *row : SeedCounts{seed, {}};
}

// "double_charges 0, but the run counts 1" for the first count that differs.
std::string first_difference(const SeedCounts& said, const SeedCounts& ran) {
    const auto names = counted_total_names();
    for (std::size_t t = 0; t < counted_totals; ++t)
        if (said.counts[t] != ran.counts[t])
            return fmt::format("the shard says {} {}, the run counts {}", names[t], said.counts[t], ran.counts[t]);
    return "";
}

}  // namespace

std::vector<std::uint64_t> verify_sample(SeedBlock block, std::vector<std::uint64_t> flagged, std::uint64_t k) {
    if (flagged.size() >= k) {
        flagged.resize(k);
        return flagged;
    }
    std::vector<std::uint64_t> chosen = flagged;
    const std::uint64_t others = block.count - flagged.size();
    const std::uint64_t m = std::min<std::uint64_t>(k - flagged.size(), others);
    auto next_flagged = flagged.begin();
    std::uint64_t skipped = 0;  // flagged ones below the candidate
    for (std::uint64_t j = 0; j < m; ++j) {
        // The middle of the j-th of m equal parts of the others, in 128 bits.
        const auto position = static_cast<std::uint64_t>(((uint128{j} * 2 + 1) * others) / (uint128{m} * 2));
        std::uint64_t chosen_one = block.first + position + skipped;
        while (next_flagged != flagged.end() && *next_flagged <= chosen_one) {
            ++next_flagged;
            ++skipped;
            ++chosen_one;
        }
        chosen.push_back(chosen_one);
    }
    return chosen;
}

std::vector<std::uint64_t> seeds_to_verify(const SweepSummary& shard, std::uint64_t k) {
    std::vector<std::uint64_t> failing;
    for (const auto& design : shard.designs)
        for (const auto& run : design.seeds_counted)
            if (run.violated()) failing.push_back(run.seed);
    std::sort(failing.begin(), failing.end());
    failing.erase(std::unique(failing.begin(), failing.end()), failing.end());
    return verify_sample(shard.covered, std::move(failing), k);
}

VerifiedShards verify_sweep_shards(const ShardFiles& files, std::uint64_t k, unsigned threads,
                                   const std::string& version, const std::string& commit) {
    const SweepSummary& first = files.complete.front();
    const std::string& first_file = files.complete_files.front();
    // The runs are compared count for count: only this build's runs are the shards' runs.
    if (first.provenance.locksim_version != version || first.provenance.commit != commit)
        throw SweepError(fmt::format(
            "merge --verify: the shards were written by locksim {} (commit {}), this is locksim {} (commit {}): "
            "verify them with the locksim that swept",
            first.provenance.locksim_version, first.provenance.commit, version, commit));
    for (std::size_t i = 0; i < files.complete.size(); ++i)
        for (const auto& design : files.complete[i].designs)
            if (!design.keeps_seeds)
                throw SweepError(fmt::format(
                    "merge --verify: {} keeps no per-seed counts (a whole sweep's summary, not a shard): nothing "
                    "to compare a rerun with; verify the shards written by sweep --shard",
                    files.complete_files[i]));
    const Scenario scenario = load_scenario_file(first.file, metric_names());
    if (scenario.content_sha256 != first.provenance.scenario_sha256)
        throw SweepError(fmt::format(
            "merge --verify: {} is not the scenario the shards ran: {} (SHA-256 {} now, {} in {}); rerun every "
            "shard, or verify with the file they ran",
            first.file,
            what_changed(first.provenance, first_file, scenario.data_file_sha256, first.file + " as it is now",
                         "since"),
            scenario.content_sha256, first.provenance.scenario_sha256, first_file));

    // What a run computes besides its counts: the scenario's name and words, the designs, the
    // given fault and the probability that weighs every rate. A shard agrees with the others
    // on them (merge checks), so the first one stands for all.
    SweepSummary again;
    try {
        again = empty_sweep(scenario, first.seeds, first.settings);
    } catch (const GivenFaultError& error) {
        throw SweepError(
            fmt::format("merge --verify: {}: the scenario as it is now cannot rerun it: {}", first_file, error.what()));
    }
    if (const auto differs = recomputed_difference(first, again))
        throw SweepError(fmt::format(
            "merge --verify: {}: shard {}/{} does not reproduce: it says {} is {}, a rerun computes {}; the shard was "
            "edited or ran another scenario: rerun it: {}",
            first_file, first.shard, first.shards, differs->name, differs->mine, differs->theirs,
            sweep_command_line(first, first.shard)));

    struct Rerun {
        std::size_t shard;
        std::uint64_t seed;
    };
    std::vector<Rerun> reruns;
    VerifiedShards verified;
    for (std::size_t i = 0; i < files.complete.size(); ++i) {
        const SweepSummary& shard = files.complete[i];
        for (const auto seed : seeds_to_verify(shard, k)) {
            reruns.push_back(Rerun{i, seed});
            const bool failed = std::any_of(shard.designs.begin(), shard.designs.end(),
                                            [&](const DesignTally& d) { return recorded(d, seed).violated(); });
            verified.failing += failed ? 1 : 0;
            verified.runs += shard.designs.size();
        }
        ++verified.shards;
    }
    verified.seeds = reruns.size();
    std::vector<std::vector<SeedCounts>> ran(reruns.size());
    run_in_parallel(
        reruns.size(), threads,
        [&](std::uint64_t r, unsigned) {
            ran[r] = sweep_one_seed(scenario, reruns[r].seed, files.complete[reruns[r].shard].settings);
        },
        [](std::uint64_t) {});
    for (std::size_t r = 0; r < reruns.size(); ++r) {
        const SweepSummary& shard = files.complete[reruns[r].shard];
        for (std::size_t d = 0; d < shard.designs.size(); ++d) {
            const SeedCounts said = recorded(shard.designs[d], reruns[r].seed);
            if (said == ran[r][d]) continue;
            throw SweepError(fmt::format(
                "merge --verify: {}: shard {}/{} does not reproduce: seed {} of design {}: {}; the shard was edited "
                "or ran another scenario: rerun it: {}",
                files.complete_files[reruns[r].shard], shard.shard, shard.shards, reruns[r].seed, shard.designs[d].name,
                first_difference(said, ran[r][d]), sweep_command_line(shard, shard.shard)));
        }
    }
    return verified;
}

VerifiedShards verify_explore_shards(const ShardFiles& files, const Scenario& scenario, const ExploreOptions& options,
                                     std::uint64_t k) {
    struct Rerun {
        std::size_t shard;
        std::uint64_t unit;
    };
    std::vector<Rerun> reruns;
    std::vector<std::uint64_t> units;
    VerifiedShards verified;
    for (std::size_t i = 0; i < files.explorations.size(); ++i) {
        const ExploreShard& shard = *files.explorations[i];
        std::vector<std::uint64_t> violating;
        for (std::uint64_t u = 0; u < shard.outcomes.size(); ++u)
            if (shard.outcomes[u].violated()) violating.push_back(shard.first_unit + u);
        verified.failing += std::min<std::uint64_t>(violating.size(), k);
        for (const auto unit : verify_sample(SeedBlock{shard.first_unit, shard.outcomes.size()}, violating, k)) {
            reruns.push_back(Rerun{i, unit});
            units.push_back(unit);
        }
        ++verified.shards;
    }
    verified.seeds = verified.runs = reruns.size();
    const std::vector<UnitOutcome> ran = rerun_units(scenario, options, units);
    for (std::size_t r = 0; r < reruns.size(); ++r) {
        const ExploreShard& shard = *files.explorations[reruns[r].shard];
        const UnitOutcome& said = shard.outcomes[reruns[r].unit - shard.first_unit];
        if (said == ran[r]) continue;
        throw SweepError(fmt::format(
            "merge --verify: {}: shard {}/{} does not reproduce: unit {}: the shard says {}, the run gives {}; the "
            "shard was edited or ran another scenario: rerun it: {}",
            files.complete_files[reruns[r].shard], shard.shard, shard.shards, reruns[r].unit,
            message_safe(explore_outcome_json(said).dump(), 200),
            message_safe(explore_outcome_json(ran[r]).dump(), 200), shard.provenance.command));
    }
    return verified;
}

}  // namespace locksim
