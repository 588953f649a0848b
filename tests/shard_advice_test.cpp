// runners/shard_advice.hpp: the number of shards an explore past its limit on region runs
// advises is one under which every shard, cut as --shard cuts them, passes; and one fewer
// does not.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "checks/sweep_summary.hpp"
#include "runners/explore_runner.hpp"
#include "runners/shard_advice.hpp"
#include "tests/small_explore.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// Whether every shard_block of `costs` in `shards` costs at most `limit`.
bool every_shard_passes(const std::vector<std::uint64_t>& costs, std::uint32_t shards, std::uint64_t limit) {
    for (std::uint32_t i = 1; i <= shards; ++i) {
        const SeedBlock block = shard_block(SeedBlock{0, costs.size()}, i, shards);
        std::uint64_t cost = 0;
        for (std::uint64_t unit = block.first; unit < block.first + block.count; ++unit) cost += costs[unit];
        if (cost > limit) return false;
    }
    return true;
}

// Which limit a test lowers.
enum class Limit { region_runs, events };

// The message with which exploring `scenario` as shard `shard` of `shards` under a limit of
// `limit` region runs or events is refused, or nothing when it runs.
std::optional<std::string> explore_refusal(const Scenario& scenario, std::uint32_t shard, std::uint32_t shards,
                                           std::uint64_t limit, Limit which = Limit::region_runs) {
    ExploreOptions options{.threads = 2, .shard = shard, .shards = shards};
    (which == Limit::region_runs ? options.region_run_limit : options.event_budget) = limit;
    try {
        run_explore_shard(scenario, options);
    } catch (const ExploreError& error) {
        return std::string(error.what());
    }
    return std::nullopt;
}

// The count of shards `refused` advises (a test failure if it advises none).
std::uint32_t shards_advised(const std::string& refused) {
    INFO(refused);
    std::smatch said;
    const std::regex advice(
        R"(; shard it: locksim explore small\.json[^;]* --shard 1/(\d+) and so on to (\d+)/(\d+) )");
    REQUIRE(std::regex_search(refused, said, advice));
    CHECK(said[2] == said[1]);
    CHECK(said[3] == said[1]);
    return static_cast<std::uint32_t>(std::stoul(said[1]));
}

}  // namespace

TEST_CASE("shards that pass: the fewest from the total over the limit, as shard_block cuts the units") {
    constexpr std::uint64_t limit = 100;
    // Even costs: the total over the limit is enough.
    CHECK(shards_that_pass(std::vector<std::uint64_t>(10, 50), limit) == 5u);
    // Uneven: 300 runs in all fit three shards of 100 only if cut where the costs allow;
    // shard_block cuts 6 units into 2, 2 and 2, which puts 100 + 50 together.
    const std::vector<std::uint64_t> uneven{100, 50, 50, 0, 100, 0};
    CHECK_FALSE(every_shard_passes(uneven, 3, limit));
    const auto advised = shards_that_pass(uneven, limit);
    REQUIRE(advised.has_value());
    CHECK(every_shard_passes(uneven, *advised, limit));
    CHECK_FALSE(every_shard_passes(uneven, *advised - 1, limit));
    // Extremes: no units, units that cost nothing, every unit at the limit, one past it.
    CHECK(shards_that_pass({}, limit) == 1u);
    CHECK(shards_that_pass(std::vector<std::uint64_t>(1000, 0), limit) == 1u);
    CHECK(shards_that_pass(std::vector<std::uint64_t>(7, limit), limit) == 7u);
    CHECK(shards_that_pass({0, limit + 1, 0}, limit) == std::nullopt);
    // Costs so uneven that only a shard per unit passes: found by doubling, past 64 tries.
    std::vector<std::uint64_t> spiky(300, 0);
    for (std::size_t k = 0; k < spiky.size(); k += 3) spiky[k] = limit;
    spiky[1] = limit;
    const auto spiky_advised = shards_that_pass(spiky, limit);
    REQUIRE(spiky_advised.has_value());
    CHECK(every_shard_passes(spiky, *spiky_advised, limit));
}

TEST_CASE("an explore past its limit advises a count of shards each of which explores, where one fewer is refused") {
    const Scenario scenario = parse_scenario(flagship_with_small_explore().dump(), "small.json", metric_names());
    constexpr std::uint64_t limit = 150;
    const std::optional<std::string> whole = explore_refusal(scenario, 1, 1, limit);
    REQUIRE(whole.has_value());
    INFO(*whole);
    std::smatch said;
    const std::regex advice(
        R"(; shard it: locksim explore small\.json[^;]* --shard 1/(\d+) and so on to (\d+)/(\d+) )");
    REQUIRE(std::regex_search(*whole, said, advice));
    const auto shards = static_cast<std::uint32_t>(std::stoul(said[1]));
    CHECK(said[2] == said[1]);
    REQUIRE(shards > 1);
    for (std::uint32_t shard = 1; shard <= shards; ++shard) {
        INFO("shard " << shard << "/" << shards);
        CHECK(explore_refusal(scenario, shard, shards, limit).value_or("passes") == "passes");
    }
    bool one_fewer_refused = false;
    for (std::uint32_t shard = 1; shard < shards; ++shard)
        one_fewer_refused = one_fewer_refused || explore_refusal(scenario, shard, shards - 1, limit).has_value();
    CHECK(one_fewer_refused);
    // A shard of those too few says what its own units need: the finer count passes.
    for (std::uint32_t shard = 1; shard < shards; ++shard) {
        const auto refused = explore_refusal(scenario, shard, shards - 1, limit);
        if (!refused) continue;
        CHECK_THAT(*refused, Catch::Contains("in this shard") && Catch::Contains("each other shard says its own"));
    }
}

TEST_CASE(
    "an explore whose runs would process more events than its budget is refused before any runs, with shards that "
    "pass") {
    const Scenario scenario = parse_scenario(flagship_with_small_explore().dump(), "small.json", metric_names());
    constexpr std::uint64_t budget = 40'000;
    const std::optional<std::string> whole = explore_refusal(scenario, 1, 1, budget, Limit::events);
    REQUIRE(whole.has_value());
    INFO(*whole);
    CHECK_THAT(*whole, Catch::StartsWith("exploring the file takes 60 placement runs and 57 start classes of runs of "
                                         "up to 242 events each (the runs without faults), about 53,742 events in "
                                         "all, more than the 40,000 one explore processes at once; shard it: "));
    const std::uint32_t shards = shards_advised(*whole);
    for (std::uint32_t shard = 1; shard <= shards; ++shard) {
        INFO("shard " << shard << "/" << shards);
        CHECK(explore_refusal(scenario, shard, shards, budget, Limit::events).value_or("passes") == "passes");
    }
    bool one_fewer_refused = false;
    for (std::uint32_t shard = 1; shard < shards; ++shard)
        one_fewer_refused =
            one_fewer_refused || explore_refusal(scenario, shard, shards - 1, budget, Limit::events).has_value();
    CHECK(one_fewer_refused);
}
