// Sweeps: the same totals whatever the thread count, shards that merge into the whole,
// and the Wilson interval.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include "reports/checks/metrics.hpp"
#include "reports/cli/sweep_runner.hpp"
#include "reports/sweep_summary.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;

namespace {

Scenario random_gc_pauses() {
    return load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/random-gc-pauses.json", metric_names());
}

void no_progress(std::uint64_t) {}

}  // namespace

TEST_CASE("the Wilson interval matches known values") {
    // 10 of 100: 95% Wilson interval 5.52%..17.44% (Newcombe 1998, and any statistics package).
    const auto tenth = wilson_interval(10, 100);
    CHECK(tenth.low == Approx(0.0552).margin(0.0001));
    CHECK(tenth.high == Approx(0.1744).margin(0.0001));
    // None of 50: from 0 to 7.13%.
    const auto none = wilson_interval(0, 50);
    CHECK(none.low == 0);
    CHECK(none.high == Approx(0.0713).margin(0.0001));
    // All of 20: from 83.89% to 100%.
    const auto all = wilson_interval(20, 20);
    CHECK(all.low == Approx(0.8389).margin(0.0001));
    CHECK(all.high == 1);
}

TEST_CASE("a sweep gives the same totals on one thread and on two") {
    const Scenario scenario = random_gc_pauses();
    const SeedBlock seeds{1, 600};
    const auto one = run_sweep(scenario, seeds, 1, no_progress);
    const auto two = run_sweep(scenario, seeds, 2, no_progress);
    CHECK(sweep_json(one).dump() == sweep_json(two).dump());
    CHECK(one.designs.at(0).runs == 600);
}

TEST_CASE("shards of a sweep merge into exactly the unsharded totals") {
    const Scenario scenario = random_gc_pauses();
    const SeedBlock seeds{1, 601};  // not a multiple of the shard count
    SweepSummary whole = run_sweep(scenario, seeds, 2, no_progress);
    std::vector<SweepSummary> parts;
    std::vector<std::string> names;
    for (std::uint32_t i = 1; i <= 3; ++i) {
        SweepSummary part = run_sweep(scenario, shard_block(seeds, i, 3), 2, no_progress);
        part.seeds = seeds;
        part.shard = i;
        part.shards = 3;
        // Through JSON, as merge reads shard files.
        parts.push_back(sweep_from_json(sweep_json(part), "shard.json"));
        names.push_back(fmt::format("shard-{}.json", i));
    }
    CHECK(sweep_json(merge_shards(parts, names)).dump() == sweep_json(whole).dump());
}

TEST_CASE("merge refuses a shard given twice, a missing shard, and shards of another sweep") {
    SweepSummary part;
    part.scenario = "s";
    part.file = "s.json";
    part.seeds = SeedBlock{1, 100};
    part.shards = 2;
    part.shard = 1;
    part.covered = shard_block(part.seeds, 1, 2);
    SweepSummary other = part;
    other.shard = 2;
    other.covered = shard_block(part.seeds, 2, 2);

    CHECK_THROWS_WITH(merge_shards({part, part}, {"a.json", "b.json"}), Catch::Contains("shard 1/2 is given twice"));
    CHECK_THROWS_WITH(merge_shards({part}, {"a.json"}), Catch::Contains("shard 2/2 is missing"));
    SweepSummary foreign = other;
    foreign.scenario = "t";
    CHECK_THROWS_WITH(merge_shards({part, foreign}, {"a.json", "b.json"}), Catch::Contains("another sweep"));
    CHECK_NOTHROW(merge_shards({other, part}, {"b.json", "a.json"}));
}

TEST_CASE("shard blocks partition the seeds without gaps or overlaps") {
    const SeedBlock seeds{5, 1003};
    std::uint64_t next = seeds.first;
    for (std::uint32_t i = 1; i <= 7; ++i) {
        const SeedBlock block = shard_block(seeds, i, 7);
        CHECK(block.first == next);
        next = block.first + block.count;
    }
    CHECK(next == seeds.first + seeds.count);
}

TEST_CASE("a tally keeps the smallest failing seeds, whatever order they arrive in") {
    RunMetrics failing;
    failing.flagged.push_back(FlaggedEvent{0, true, "customer 42 charged a second time"});
    DesignTally a{"d"}, b{"d"};
    for (std::uint64_t seed : {50, 3, 40, 7, 2, 90, 13, 8, 1, 60, 11, 5}) a.add(seed, failing);
    for (std::uint64_t seed : {4, 6}) b.add(seed, failing);
    a.merge(b);
    CHECK(a.failing_seeds == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 11, 13});
    CHECK(a.runs_with_violation == 14);
}
