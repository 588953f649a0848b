// The engineer's own system, as shipped in scenarios/examples/: a cron on four pods, a
// lock that skips when refused, measured pauses, their own words. What the walk-through
// in docs/own-system.md shows must be what the program does.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "tests/program_support.hpp"

using locksim::testing::run_locksim;

namespace {

const std::string example = "scenarios/examples/monthly-statements.json";

}  // namespace

TEST_CASE("the example runs a cron of 12 ticks on four pods and emails user 1005 twice, in its own words") {
    const auto json = run_locksim("run " + example + " --format json");
    REQUIRE(json.exit_code == 0);
    const auto document = nlohmann::json::parse(json.out);
    CHECK(document.at("vocabulary").at("item") == "user");
    CHECK(document.at("vocabulary").at("effect") == "email");
    const auto& deployed = document.at("designs")[0];
    CHECK(deployed.at("name") == "as-deployed");
    CHECK(deployed.at("metrics").at("job_runs") == 4 * 12);  // every pod's every tick
    CHECK(deployed.at("metrics").at("double_charges") == 1);
    CHECK(deployed.at("details").at("double_charged")[0].at("customer") == 1005);
    CHECK(deployed.at("details").at("double_charged")[0].at("period") == "2026-11#1");  // the first tick's
    CHECK(deployed.at("faults").at("each")[0].at("reached_the_lock") == true);
    CHECK(document.at("designs")[1].at("metrics").at("double_charges") == 0);
    const auto& counter_token = document.at("designs")[2];
    CHECK(counter_token.at("name") == "counter-token-at-provider");
    CHECK(counter_token.at("metrics").at("double_charges") == 0);
    CHECK(counter_token.at("metrics").at("stale_writes_rejected") == 1);
    CHECK(counter_token.at("metrics").at("tokens_reused") == 0);  // one Redis, never restarted

    const auto text = run_locksim("run " + example);
    CHECK_THAT(text.out, Catch::Contains("double emails") && Catch::Contains("1 (user 1005)"));
    CHECK_THAT(text.out, Catch::Contains("emails user 1005 (email 21): user 1005 emailed a second time for 2026-11#1"));
    CHECK_THAT(text.out, Catch::Contains("prepares user 1005's statement"));
    CHECK(text.out.find("customer") == std::string::npos);
    CHECK(text.out.find("invoice") == std::string::npos);

    const auto fenced = run_locksim("run " + example + " --design counter-token-at-provider");
    CHECK_THAT(fenced.out, Catch::Contains("refuses to email user 1005 with token 1: stale write refused: token 2 "
                                           "had already reached the email provider"));
}

TEST_CASE("a copy of the example whose pause names a pod that is only waiting is reported as inert") {
    std::string text = locksim::testing::slurp(std::string(LOCKSIM_SOURCE_DIR) + "/" + example);
    const std::string aimed = R"("pause": {"role": "holder"})";
    const auto at = text.find(aimed);
    REQUIRE(at != std::string::npos);
    text.replace(at, aimed.size(), R"("pause": "pod-2")");
    const auto copy = locksim::testing::write_temp("missed.json", text);

    const auto ran = run_locksim("run " + copy);
    CHECK(ran.exit_code == 1);  // as-deployed expected a double email and got none
    CHECK_THAT(ran.out, Catch::Contains("INERT monthly-statements as-deployed: fault 1 (/faults/0) struck pod-2"));
    CHECK_THAT(ran.out, Catch::Contains("target {\"role\": \"holder\"}"));
}

TEST_CASE("the example's rate file gates the idempotent design in check, and the study varies its assumptions") {
    const auto checked = run_locksim("check scenarios/examples/");
    CHECK(checked.exit_code == 0);
    CHECK_THAT(checked.out, Catch::Contains("PASS monthly-statements-rate sweep of 300 seeds: idempotency-key"));
    CHECK_THAT(checked.out, Catch::Contains("13 passed, 0 failed, 0 unusable") &&
                                Catch::Contains("PASS ledger-export explore: as-deployed"));

    const auto study = run_locksim(
        "sweep scenarios/examples/monthly-statements-rate.json --seeds 50 --design as-deployed "
        "--vary lock.ttl=5s,30s --vary fault_generators/0/mean_interval=5s,30s --format json");
    REQUIRE(study.exit_code == 0);
    CHECK(nlohmann::json::parse(study.out).at("points").size() == 4);
}

TEST_CASE("a recurring job's last run must start before the horizon, and both every and runs are needed") {
    std::string text = locksim::testing::slurp(std::string(LOCKSIM_SOURCE_DIR) + "/" + example);
    const auto runs = text.find("\"runs\": 12");
    REQUIRE(runs != std::string::npos);
    std::string late = text;
    late.replace(runs, std::string("\"runs\": 12").size(), "\"runs\": 13");  // the 13th tick at 1h
    const auto past = run_locksim("run " + locksim::testing::write_temp("late.json", late));
    CHECK(past.exit_code == 2);
    CHECK_THAT(past.err, Catch::Contains("/job/runs: the last run would start at 1h"));
    std::string alone = text;
    alone.replace(runs, std::string("\"runs\": 12,").size(), "");
    const auto no_runs = run_locksim("run " + locksim::testing::write_temp("alone.json", alone));
    CHECK(no_runs.exit_code == 2);
    CHECK_THAT(no_runs.err, Catch::Contains("/job: a recurring job needs both \"every\""));
}

TEST_CASE("the ledger example's rate gate, given its monthly freezes, fails without the key and replays the run") {
    const std::string ledger = "scenarios/examples/ledger-export.json";
    const auto gated = run_locksim(
        "sweep " + ledger + " --seeds 2000 --given-fault 0 --max-rate as-deployed=0 --max-rate idempotency-key=0");
    CHECK(gated.exit_code == 1);
    CHECK_THAT(gated.err, Catch::Contains("FAIL rate gate as-deployed") &&
                              Catch::Contains("PASS rate gate idempotency-key: 0 of 2000 runs"));
    // The replay draws the run as the sweep did, given the freeze, and shows its double transfer.
    const auto replay = gated.err.find("replay: ");
    REQUIRE(replay != std::string::npos);
    std::string command = gated.err.substr(replay + 8, gated.err.find('\n', replay) - replay - 8);
    CHECK_THAT(command, Catch::EndsWith("--design as-deployed --given-fault 0"));
    const auto ran = run_locksim(command.substr(command.find(" run ") + 1) + " --color never");
    CHECK(ran.exit_code == 1);
    CHECK_THAT(ran.out, Catch::Contains("sigstop pause: frozen for") &&
                            Catch::Contains("FAIL ledger-export as-deployed: double transfers expected 0"));
}
