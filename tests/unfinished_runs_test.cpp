// No silent pass: a run its horizon cut with work pending is not a safe run. `run` says so,
// sweeps count runs_unfinished in text, JSON and merge, and a rate gate or a sweep block
// fails while any run was cut, naming how many and the command that replays the first.
// And a horizon that leaves only a recurring job's next tick due cuts nothing.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "tests/program_support.hpp"

using namespace locksim::testing;

namespace {

// gc-pause-40s with a horizon of `horizon`, its own expectations and explore block left out,
// and `sweep` as its sweep block when given: with 30s the run stops while server 1 is
// frozen mid-job and servers 2 and 3 wait for the lock, 16 s before the double charge.
// `expect`, when given, is every design's own "expect".
std::string pause_scenario(const std::string& name, const std::string& horizon, const nlohmann::json& sweep = nullptr,
                           const nlohmann::json& expect = nullptr) {
    nlohmann::ordered_json scenario =
        nlohmann::ordered_json::parse(slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json"));
    scenario["horizon"] = horizon;
    scenario.erase("explore");
    scenario.erase("$schema");
    for (auto& [_, design] : scenario["designs"].items()) {
        design.erase("expect");
        if (!expect.is_null()) design["expect"] = expect;
    }
    if (!sweep.is_null()) scenario["sweep"] = sweep;
    return write_temp(name, scenario.dump(2));
}

// cron-skew's third design, a job every minute for three minutes whose server 3 fires 90 s
// late, with a horizon of 140 s: every run has ended by then, and server 3's second tick
// (150 s) is still due, so the horizon cuts the run with nothing begun left undone.
std::string recurring_scenario() {
    nlohmann::ordered_json scenario =
        nlohmann::ordered_json::parse(slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/cron-skew.json"));
    scenario["horizon"] = "140s";
    scenario.erase("$schema");
    nlohmann::ordered_json late = scenario["designs"]["server-3-starts-90s-late"];
    late.erase("expect");
    scenario["designs"] = {{"server-3-starts-90s-late", late}};
    return write_temp("recurring.json", scenario.dump(2));
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a run its horizon cut with work pending fails, and says so in one line and in its JSON") {
    const std::string file = pause_scenario("cut-run.json", "30s");
    const auto text = run_locksim("run " + file);
    REQUIRE(text.exit_code == 1);  // unfinished work is a violation, and the file does not expect it
    CHECK(has(text.out,
              "FAIL gc-pause-40s unfenced: unfinished_work expected 0 (a correctness lock), got 3 (server-1's job run "
              "(started at 0.000s; frozen since 6.000s): never finished by the run's end)"));
    CHECK(has(text.out,
              "UNFINISHED gc-pause-40s unfenced: its horizon (30.000s) cut the run with work pending: server-1's job "
              "run (started at 0.000s; frozen since 6.000s); server-2's job run (started at 0.000s)"));
    const auto json = nlohmann::json::parse(run_locksim("run " + file + " --format json").out);
    const auto& details = json.at("designs")[0].at("details");
    CHECK(details.at("horizon_reached") == true);
    CHECK(details.at("unfinished") == true);
    REQUIRE(details.at("pending_at_end").size() == 3);
    CHECK(
        details.at("pending_at_end")[0] ==
        nlohmann::json{{"server", "server-1"}, {"what", "job run"}, {"since_ns", 0}, {"frozen_since_ns", 6000000000}});
    std::filesystem::remove(file);
}

TEST_CASE("a rate gate fails when any run was cut with work pending, naming how many and replaying the first") {
    // The tester's report: at 30s no run gets to its violation at 46s, so the rate is 0 of 10.
    const std::string file = pause_scenario("cut-gate.json", "30s");
    const auto gated = run_locksim("sweep " + file + " --seeds 10 --max-rate unfenced=0");
    CHECK(gated.exit_code == 1);
    // Each cut run is a run with a violation now (unfinished_work): the rate itself fails,
    // and the gate still says how many were cut.
    CHECK(has(gated.err,
              "FAIL rate gate unfenced: 10 of 10 runs (100%, 95% CI 72.25%–100%; a fault reached the lock in 10 of "
              "them) broke it, above 0; "));
    CHECK(has(gated.err, "; 10 of 10 runs were cut by their horizon with work pending (runs_unfinished)"));
    CHECK(has(gated.err, "; replay the first: "));
    CHECK(has(gated.err, " run " + file + " --seed 1 --design unfenced"));
    CHECK_FALSE(has(gated.err, "PASS"));
    CHECK(has(gated.out, "UNFINISHED unfenced: 10 of 10 runs were cut by their horizon with work pending"));

    const auto json = nlohmann::json::parse(run_locksim("sweep " + file + " --seeds 10 --format json").out);
    for (const auto& design : json.at("designs")) {
        CHECK(design.at("runs_unfinished") == 10);
        CHECK(design.at("runs_with_violation") == 10);
        CHECK(design.at("unfinished_work") == 30);  // three job runs in each
        CHECK(design.at("unfinished_seeds") == nlohmann::json{1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
    }
    // With its own horizon the same sweep runs to the end, and the idempotent design passes.
    const std::string whole = pause_scenario("whole-gate.json", "5m");
    const auto held = run_locksim("sweep " + whole + " --seeds 10 --max-rate idempotent=0");
    CHECK(held.exit_code == 0);
    CHECK(has(held.err, "PASS rate gate idempotent: 0 of 10 runs"));
    std::filesystem::remove(file);
    std::filesystem::remove(whole);
}

TEST_CASE("a sweep block fails while any run was cut, unless it expects the unfinished runs itself") {
    const nlohmann::json block = {{"seeds", 8}, {"expect", {{"idempotent", {{"runs_with_violation", 0}}}}}};
    const std::string cut = pause_scenario("cut-block.json", "30s", block);
    const auto failed = run_locksim("check " + cut);
    CHECK(failed.exit_code == 1);  // every design's own run passes: none gets to a second charge by 30s
    // A cut run is a run with a violation (unfinished_work), and the block says how many were cut.
    CHECK(has(failed.out,
              "FAIL gc-pause-40s sweep of 8 seeds: idempotent (a fault reached the lock in 8 of 8 runs): "
              "runs_with_violation expected 0, got 8; "));
    CHECK(has(failed.out, "; 8 of 8 runs were cut by their horizon with work pending (runs_unfinished)"));
    CHECK(has(failed.out, "; replay the first: "));
    CHECK(has(failed.out, " run " + cut + " --seed 1 --design idempotent"));

    // Run to its end (unfenced then fails its implied zero double charges, as it should).
    const std::string whole = pause_scenario("whole-block.json", "5m", block);
    CHECK(has(run_locksim("check " + whole).out,
              "PASS gc-pause-40s sweep of 8 seeds: idempotent (a fault reached the lock in 8 of 8 runs)\n"));

    // A file about the cut says so everywhere: in the block, and in each design's own run.
    const nlohmann::json expected_cut = {
        {"seeds", 8},
        {"expect",
         {{"idempotent",
           {{"runs_unfinished", 8}, {"runs_with_violation", 8}, {"unfinished_work", {{"at_least", 8}}}}}}}};
    const nlohmann::json own = {{"unfinished_work", {{"at_least", 1}}}, {"items_not_done", {{"at_least", 1}}}};
    const std::string named = pause_scenario("named-block.json", "30s", expected_cut, own);
    const auto named_check = run_locksim("check " + named);
    CHECK(named_check.exit_code == 0);
    CHECK(has(named_check.out,
              "PASS gc-pause-40s sweep of 8 seeds: idempotent (a fault reached the lock in 8 of 8 runs)\n"));
    for (const auto& file : {cut, whole, named}) std::filesystem::remove(file);
}

TEST_CASE("shards of a sweep with cut runs merge into the unsharded count of them") {
    const std::string file = pause_scenario("cut-shards.json", "30s");
    const auto directory = fresh_directory("cut-shards");
    for (const char* shard : {"1/2", "2/2"})
        REQUIRE(run_locksim("sweep " + file + " --seeds 6 --shard " + shard + " --output " +
                            (directory / (std::string("shard-") + shard[0] + ".json")).string())
                    .exit_code == 0);
    const auto merged = run_locksim("merge --format json " + (directory / "shard-1.json").string() + " " +
                                    (directory / "shard-2.json").string());
    REQUIRE(merged.exit_code == 0);
    const auto whole = run_locksim("sweep " + file + " --seeds 6 --format json");
    CHECK(merged.out == whole.out);
    const auto json = nlohmann::json::parse(merged.out);
    CHECK(json.at("designs")[0].at("runs_unfinished") == 6);
    CHECK(json.at("designs")[0].at("unfinished_seeds") == nlohmann::json{1, 2, 3, 4, 5, 6});
    const auto text =
        run_locksim("merge " + (directory / "shard-1.json").string() + " " + (directory / "shard-2.json").string());
    CHECK(has(text.out, "UNFINISHED unfenced: 6 of 6 runs were cut"));
    std::filesystem::remove_all(directory);
    std::filesystem::remove(file);
}

TEST_CASE("a horizon that leaves only a recurring job's next tick due cuts no run") {
    const std::string file = recurring_scenario();
    const auto json = nlohmann::json::parse(run_locksim("run " + file + " --format json").out);
    const auto& details = json.at("designs")[0].at("details");
    CHECK(details.at("horizon_reached") == true);  // server 3's next tick was still due
    CHECK(details.at("unfinished") == false);
    CHECK(details.at("pending_at_end").empty());
    const auto text = run_locksim("run " + file).out;
    CHECK_FALSE(has(text, "UNFINISHED"));
    CHECK_FALSE(has(text, "with work still pending"));

    // The gate fails, but not for runs cut short: the file has no faults, so its rate says
    // nothing about them.
    const auto gated = run_locksim("sweep " + file + " --seeds 5 --max-rate server-3-starts-90s-late=0 --format json");
    CHECK(gated.exit_code == 1);
    CHECK(nlohmann::json::parse(gated.out).at("designs")[0].at("runs_unfinished") == 0);
    CHECK(has(gated.err, "FAIL rate gate server-3-starts-90s-late: 0 of 5 runs"));
    CHECK(has(gated.err, "but vacuous: no fault reached the lock"));
    CHECK(has(gated.err, "the design has no faults, placed or drawn"));
    CHECK_FALSE(has(gated.err, "cut by their horizon"));
    std::filesystem::remove(file);
}
