// Did the faults matter? Each design with faults is run again without each of them and
// without any: a fault that changed nothing is inert, and a design whose faults all missed
// the lock passes vacuously. The engineer's false pass: a pause by name on a server that
// was only waiting.
#include <catch2/catch.hpp>

#include "tests/program_support.hpp"
#include "tests/support.hpp"

#include <nlohmann/json.hpp>

#include <string>

#include "checks/metrics.hpp"
#include "reports/fault_text.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;

namespace {

// gc-pause-40s with only its fenced design, which expects no double charge and nothing
// else, and these faults: a file a newcomer might write.
std::string fenced_file(const std::string& faults) {
    auto scenario = nlohmann::json::parse(
        locksim::testing::slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json"));
    scenario.erase("explore");
    scenario["faults"] = nlohmann::json::parse(faults);
    auto fenced = scenario["designs"]["fenced"];
    fenced["expect"] = {{"double_charges", 0}};
    scenario["designs"] = {{"fenced", fenced}};
    return locksim::testing::write_temp("fenced-only.json", scenario.dump(2));
}

DesignOutcome fenced_with(const std::string& faults) {
    const Scenario scenario = load_scenario_file(fenced_file(faults), metric_names());
    ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    REQUIRE(outcome.designs.size() == 1);
    return std::move(outcome.designs.front());
}

}  // namespace

TEST_CASE("a pause on a server that was only waiting is inert, and the design's pass is flagged as vacuous") {
    // At 6 s server-1 holds the lock; server-2 waits for it.
    const DesignOutcome run = fenced_with(R"([{"pause": "server-2", "at": "6s", "for": "40s"}])");
    REQUIRE(run.faults);
    REQUIRE(run.faults->each.size() == 1);
    const FaultEffect& pause = run.faults->each.front();
    CHECK(pause.inert());
    CHECK_FALSE(pause.reached_the_lock);
    REQUIRE(pause.struck.size() == 1);
    CHECK(run.trace.node_name(pause.struck.front().target) == "server-2");
    CHECK(pause.struck.front().was_doing == "was not holding the lock");
    CHECK(pause.without_it.metrics.empty());
    CHECK(run.faults->all_missed());
    CHECK(run.faults->held_without_faults);
    CHECK(run.held());
    CHECK(run.passes_only_with_inert_faults());

    const auto lines = describe_inert_faults(run);
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines.front(), Catch::Contains("struck server-2 at 6.000s, which was not holding the lock") &&
                                  Catch::Contains("{\"role\": \"holder\"}"));
    CHECK_THAT(describe_all_inert(run), Catch::Contains("every fault was inert"));
}

TEST_CASE("the same pause aimed at the holder matters: the fence refuses the stale write") {
    const DesignOutcome run = fenced_with(R"([{"pause": {"role": "holder"}, "at": "6s", "for": "40s"}])");
    REQUIRE(run.faults);
    const FaultEffect& pause = run.faults->each.front();
    CHECK_FALSE(pause.inert());
    CHECK(pause.reached_the_lock);
    CHECK(pause.struck.front().was_doing == "held the lock");
    CHECK_FALSE(pause.without_it.no_story_change());
    CHECK_THAT(pause.without_it.metrics, Catch::VectorContains(std::string("stale_writes_rejected 1 (0 without it)")));
    CHECK_FALSE(run.passes_only_with_inert_faults());
    CHECK(describe_inert_faults(run).empty());
    CHECK(describe_all_inert(run).empty());
}

TEST_CASE("a holder paused for less than its lease is absorbed: inert, but no vacuous pass") {
    const DesignOutcome run = fenced_with(R"([{"pause": {"role": "holder"}, "at": "6s", "for": "2s"}])");
    REQUIRE(run.faults);
    const FaultEffect& pause = run.faults->each.front();
    CHECK(pause.inert());
    CHECK(pause.without_it.no_story_change());
    CHECK(pause.reached_the_lock);
    CHECK_FALSE(run.faults->all_missed());
    CHECK_FALSE(run.passes_only_with_inert_faults());
    REQUIRE(describe_inert_faults(run).size() == 1);
    CHECK_THAT(describe_inert_faults(run).front(), Catch::Contains("The design absorbed it."));
}

TEST_CASE("faults that never struck, or found no one in their role, are inert and say so") {
    const DesignOutcome run = fenced_with(R"([
        {"pause": "server-1", "for": "40s", "when": {"event": "job.preparing", "customer": 999}},
        {"pause": {"role": "holder"}, "at": "0s", "for": "40s"},
        {"pause": {"role": "holder"}, "at": "6s", "for": "40s"}])");
    REQUIRE(run.faults);
    REQUIRE(run.faults->each.size() == 3);
    CHECK(run.faults->each[0].struck.empty());
    CHECK(run.faults->each[0].inert());
    REQUIRE(run.faults->each[1].struck.size() == 1);
    CHECK(run.faults->each[1].struck.front().role == "none");
    CHECK(run.faults->each[1].inert());
    CHECK_FALSE(run.faults->each[2].inert());
    const auto lines = describe_inert_faults(run);
    REQUIRE(lines.size() == 2);
    CHECK_THAT(lines[0], Catch::StartsWith("fault 1 (/faults/0) never struck") &&
                             Catch::Contains("no event of the run matched it"));
    CHECK_THAT(lines[1], Catch::StartsWith("fault 2 (/faults/1) found no one in its role at 0.000s"));
}

TEST_CASE("a design without faults is not judged, and sweeps do not judge") {
    const DesignOutcome run = fenced_with("[]");
    CHECK_FALSE(run.faults);
    CHECK_FALSE(run.passes_only_with_inert_faults());
}

TEST_CASE("the judgement is the same on every run of the same file and seed") {
    const auto file = fenced_file(R"([{"pause": "server-2", "at": "6s", "for": "40s"}])");
    const auto first = locksim::testing::run_locksim("run " + file + " --format json");
    const auto second = locksim::testing::run_locksim("run " + file + " --format json");
    CHECK(first.out == second.out);
    CHECK_THAT(first.out, Catch::Contains("\"passes_only_with_inert_faults\": true"));
}

TEST_CASE("check warns about a vacuous pass, and fails it with --refuse-inert") {
    // The pause strikes server-2, which only waits for the lock.
    const auto file = fenced_file(R"([{"pause": "server-2", "at": "6s", "for": "40s"}])");

    const auto warned = locksim::testing::run_locksim("check " + file);
    CHECK_THAT(warned.out, Catch::Contains("WARN gc-pause-40s fenced: passes only because every fault was inert"));
    CHECK_THAT(warned.out, Catch::Contains("(--refuse-inert fails it)"));
    CHECK_THAT(warned.out, Catch::Contains("PASS gc-pause-40s fenced"));

    const auto refused = locksim::testing::run_locksim("check --refuse-inert " + file);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.out, Catch::Contains("FAIL gc-pause-40s fenced: passes only because every fault was inert"));

    // A clock step on the holder that the monotonic design absorbs is evidence, not a warning.
    const auto absorbed = locksim::testing::run_locksim("check --refuse-inert scenarios/wall-clock-durations.json");
    CHECK(absorbed.exit_code == 0);
    CHECK(absorbed.out.find("WARN") == std::string::npos);

    // The shipped file's pause strikes the holder: nothing to warn about.
    const auto shipped = locksim::testing::run_locksim("check --refuse-inert scenarios/gc-pause-40s.json");
    CHECK(shipped.exit_code == 0);
    CHECK(shipped.out.find("WARN") == std::string::npos);
}
