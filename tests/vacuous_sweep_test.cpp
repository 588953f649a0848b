// Sweeps say what they tested: in how many runs a fault reached the lock, judged as `run`
// judges each fault (checks/fault_effects.hpp); a rate gate or a sweep block none of whose
// runs a fault reached fails as vacuous, saying why; a gate may bound the interval's upper
// end so that too few runs cannot pass; a sweep block may be conditioned on a rare fault.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>

#include "checks/metric_table.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/program_support.hpp"

using namespace locksim::testing;
using Json = nlohmann::ordered_json;

namespace {

Json shipped_random_gc_pauses() {
    return Json::parse(slurp(std::filesystem::path(LOCKSIM_SOURCE_DIR) / "scenarios/random-gc-pauses.json"));
}

// random-gc-pauses as a new user might set it up for a nightly job: the job starts at
// 02:00 (7200 s), but the pauses' window still ends at 61 s, so no pause ever meets it.
Json nightly_with_early_pauses() {
    Json scenario = shipped_random_gc_pauses();
    scenario.erase("study");
    scenario.erase("sweep");
    scenario["horizon"] = "3h";
    scenario["job"]["at"] = "02:00";
    scenario["fault_generators"][0]["until"] = "61s";
    return scenario;
}

}  // namespace

TEST_CASE("a sweep counts the runs in which a fault reached the lock, as run judges each run's faults") {
    // Pauses on servers; partitions, a loss burst and delay spikes on links.
    for (const std::string file : {"scenarios/random-gc-pauses.json", "scenarios/random-network-faults.json"}) {
        const auto swept = run_locksim("sweep " + file + " --seeds 30 --format json");
        REQUIRE(swept.exit_code == 0);
        const auto json = nlohmann::json::parse(swept.out);
        const locksim::Scenario scenario =
            locksim::load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/" + file, locksim::metric_names());
        for (const auto& design : json.at("designs")) {
            std::uint64_t reached = 0;
            for (std::uint64_t seed = 1; seed <= 30; ++seed) {
                const auto outcome = locksim::run_scenario(scenario, seed, design.at("name").get<std::string>());
                REQUIRE(outcome.designs.front().faults.has_value());
                reached += outcome.designs.front().faults->reached_the_lock ? 1 : 0;
            }
            INFO(file << " " << design.at("name"));
            CHECK(design.at("runs_fault_reached") == reached);
            CHECK(reached > 0);
        }
        const auto text = run_locksim("sweep " + file + " --seeds 30");
        CHECK_THAT(text.out, Catch::Contains("a fault reached the lock"));
        CHECK(text.out.find("VACUOUS") == std::string::npos);
    }
}

TEST_CASE("a rate gate none of whose runs a fault reached fails as vacuous, and says why and how to see it") {
    const std::string file = write_temp("nightly.json", nightly_with_early_pauses().dump(2));
    const auto gated = run_locksim("sweep " + file + " --seeds 30 --design idempotent --max-rate idempotent=1%");
    CHECK(gated.exit_code == 1);
    CHECK_THAT(gated.err,
               Catch::Contains("FAIL rate gate idempotent: 0 of 30 runs") &&
                   Catch::Contains("vacuous: no fault reached the lock (its holder, the store while it held one, or "
                                   "a message of theirs) in 30 runs; fault_generators/0's window ends at 61.000s and "
                                   "the job starts at 7200.000s") &&
                   Catch::Contains("see what each fault struck: ") &&
                   Catch::Contains(" run " + file + " --seed 1 --design idempotent"));
    CHECK_THAT(gated.out, Catch::Contains("VACUOUS idempotent: "));

    // The same gate where the pauses meet the job passes.
    Json meeting = nightly_with_early_pauses();
    meeting["fault_generators"][0]["from"] = "7200s";
    meeting["fault_generators"][0]["until"] = "7261s";
    const auto held = run_locksim("sweep " + write_temp("meeting.json", meeting.dump(2)) +
                                  " --seeds 30 --design idempotent --max-rate idempotent=1%");
    CHECK(held.exit_code == 0);
    CHECK_THAT(held.err, Catch::Contains("PASS rate gate idempotent: 0 of 30 runs"));
}

TEST_CASE("a sweep block none of whose runs a fault reached fails check, unless it expects that itself") {
    Json scenario = nightly_with_early_pauses();
    scenario["sweep"] = Json::parse(R"({"seeds": 20, "expect": {"idempotent": {"runs_with_violation": 0}}})");
    const auto vacuous = run_locksim("check " + write_temp("nightly-block.json", scenario.dump(2)));
    CHECK(vacuous.exit_code == 1);
    CHECK_THAT(vacuous.out,
               Catch::Contains("FAIL random-gc-pauses sweep of 20 seeds: idempotent (a fault reached the lock "
                               "in 0 of 20 runs): vacuous: no fault reached the lock") &&
                   Catch::Contains("the job starts at 7200.000s"));

    // A file that means to sweep without faults says so, and passes.
    scenario["sweep"]["expect"]["idempotent"]["runs_fault_reached"] = 0;
    const auto declared = run_locksim("check " + write_temp("nightly-declared.json", scenario.dump(2)));
    CHECK(declared.exit_code == 0);
    CHECK_THAT(declared.out,
               Catch::Contains("PASS random-gc-pauses sweep of 20 seeds: idempotent (a fault reached the lock in 0 of "
                               "20 runs)"));
}

TEST_CASE("a rate gate on the interval's upper bound fails until enough runs rule the rate out") {
    // No idempotent run fails. With none failing, the Wilson bound is 3.84 / (n + 3.84): 1.26 %
    // after 300 runs, 0.95 % after 400.
    const std::string sweep = "sweep scenarios/random-gc-pauses.json --design idempotent ";
    const auto few = run_locksim(sweep + "--seeds 300 --max-rate idempotent=1%:upper");
    CHECK(few.exit_code == 1);
    CHECK_THAT(few.err, Catch::Contains("FAIL rate gate idempotent: 0 of 300 runs") &&
                            Catch::Contains("the interval's upper bound 1.264% is above 1%") &&
                            Catch::Contains("at least 381 runs"));
    const auto plain = run_locksim(sweep + "--seeds 300 --max-rate idempotent=1%");
    CHECK(plain.exit_code == 0);
    const auto enough = run_locksim(sweep + "--seeds 400 --max-rate idempotent=1%:upper");
    CHECK(enough.exit_code == 0);
    CHECK_THAT(enough.err, Catch::Contains("PASS rate gate idempotent: 0 of 400 runs") &&
                               Catch::Contains("the upper bound at most 1%"));
    const auto zero = run_locksim(sweep + "--seeds 10 --max-rate idempotent=0:upper");
    CHECK(zero.exit_code == 2);
    CHECK_THAT(zero.err, Catch::Contains("--max-rate idempotent=0:upper: an interval's upper bound is above 0"));
}

TEST_CASE("a sweep block may draw its runs given a rare fault, as sweep --given-fault does") {
    // Pauses once in 30 days per server: a plain run of ten minutes almost never meets one.
    Json scenario = shipped_random_gc_pauses();
    scenario.erase("study");
    scenario["fault_generators"][0]["mean_interval"] = "30d";
    scenario["sweep"] = Json::parse(
        R"({"seeds": 100, "given_fault": 0, "expect": {"unfenced": {"runs_with_violation": {"at_least": 1}}}})");
    const std::string file = write_temp("rare-block.json", scenario.dump(2));
    const auto given = run_locksim("check " + file);
    CHECK(given.exit_code == 0);
    CHECK_THAT(given.out, Catch::Contains("PASS random-gc-pauses sweep of 100 seeds: unfenced"));
    // The same totals as the command line's conditioned sweep.
    const auto swept = nlohmann::json::parse(
        run_locksim("sweep " + file + " --seeds 100 --design unfenced --given-fault 0 --format json").out);
    const auto reached = swept.at("designs")[0].at("runs_fault_reached").get<std::uint64_t>();
    CHECK_THAT(given.out, Catch::Contains(fmt::format("(a fault reached the lock in {} of 100 runs)", reached)));

    // A generator the designs do not have is refused where the file names it.
    scenario["sweep"]["given_fault"] = 3;
    const std::string bad = write_temp("rare-bad.json", scenario.dump(2));
    const auto refused = run_locksim("check " + bad);
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.out, Catch::Contains(bad + ":") &&
                                Catch::Contains("/sweep/given_fault: design \"unfenced\" has 1 fault generator "
                                                "(fault_generators/0 to /0); name one of them by its index"));
}
