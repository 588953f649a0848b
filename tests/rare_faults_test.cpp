// Faults that come monthly or rarer: a generator's mean interval may be years (written in
// days or hours), its draws are as rare as it says, and a job that runs less than once a
// day has its rates a day and a year (locksim issue 34).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "models/world/fault_schedule.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;

namespace {
// random-gc-pauses with its generator's interval and window replaced, over a week.
std::string weekly_file_with(const std::string& mean_interval) {
    std::string text = testing::slurp(testing::scenario_path("random-gc-pauses.json"));
    auto scenario = nlohmann::json::parse(text);
    scenario["horizon"] = "168h";
    scenario["fault_generators"][0]["mean_interval"] = mean_interval;
    scenario["fault_generators"][0].erase("until");
    return scenario.dump(2);
}
}  // namespace

TEST_CASE("a generator's mean interval may be months or years, up to five years, in days or hours") {
    CHECK(testing::error_of(weekly_file_with("30d")) == "no error");
    CHECK(testing::error_of(weekly_file_with("1080h")) == "no error");
    CHECK(testing::error_of(weekly_file_with("1825d")) == "no error");
    CHECK_THAT(testing::error_of(weekly_file_with("1826d")),
               Catch::Contains("/fault_generators/0/mean_interval: expected at most 43800h, got \"1826d\""));
    // Every other duration stays within a week, days or not.
    auto longer = nlohmann::json::parse(weekly_file_with("30d"));
    longer["horizon"] = "8d";
    CHECK_THAT(testing::error_of(longer.dump()), Catch::Contains("/horizon: expected at most 168h, got \"8d\""));
    CHECK_THAT(testing::error_of(weekly_file_with("30 days")), Catch::Contains("(units ns, us, ms, s, m, h, d)"));
}

TEST_CASE("a monthly fault strikes a week's run as often as its interval says") {
    const Scenario scenario =
        load_scenario_file(testing::write_temp("monthly.json", weekly_file_with("30d")), metric_names());
    const auto& generators = scenario.designs.front().world.fault_generators;
    REQUIRE(generators.size() == 1);
    // Three servers, each its own stream: a week's run has a pause with probability
    // 1 - e^(-3 × 7 / 30) = 0.503; over 4,000 seeds that is 2,014 ± 4 standard deviations (126).
    const int seeds = 4000;
    int struck = 0;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed)
        if (!draw_fault_schedule(generators, seed).empty()) ++struck;
    const double p = 1 - std::exp(-3.0 * 7 / 30);
    const double sd = std::sqrt(seeds * p * (1 - p));
    CHECK(std::abs(struck - seeds * p) < 4 * sd);
    // And a yearly one, about a tenth as often per server and week.
    const Scenario yearly =
        load_scenario_file(testing::write_temp("yearly.json", weekly_file_with("365d")), metric_names());
    int yearly_struck = 0;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed)
        if (!draw_fault_schedule(yearly.designs.front().world.fault_generators, seed).empty()) ++yearly_struck;
    const double q = 1 - std::exp(-3.0 * 7 / 365);
    CHECK(std::abs(yearly_struck - seeds * q) < 4 * std::sqrt(seeds * q * (1 - q)));
}

TEST_CASE("a job that runs less than once a day has its incidents a day and a year") {
    const auto ran = testing::run_locksim("sweep scenarios/random-gc-pauses.json --seeds 2000 --runs-per-day 0.5");
    REQUIRE(ran.exit_code == 0);
    // fenced: 6 of 2000 runs × 0.5 a day = 0.0015 a day, 0.5475 a year.
    CHECK_THAT(ran.out, Catch::Contains("At 0.5 runs a day:"));
    CHECK_THAT(ran.out, Catch::Contains("fenced: 0.0015 incidents a day ("));
    CHECK_THAT(ran.out, Catch::Contains(", 0.55 a year ("));
}
