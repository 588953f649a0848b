// runners/explore_runner.hpp and checks/exploration.hpp: explore finds the windows a
// fixed fault placement hides, its fault objects replay what it found, and its results
// do not depend on the thread count.
#include <catch2/catch.hpp>

#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"
#include "tests/small_explore.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "checks/exploration.hpp"
#include "checks/metrics.hpp"
#include "reports/explore_json.hpp"
#include "reports/explore_text.hpp"
#include "runners/explore_runner.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

Scenario flagship() {
    return load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json", metric_names());
}

// The flagship's explore block without its range of lengths, nor the expectations of the
// regions that range finds: the tests of windows (from the listed lengths) need only those,
// and the range is most of the block's runs.
Scenario flagship_listed_lengths() {
    Scenario scenario = flagship();
    REQUIRE(scenario.explore->faults.size() == 2);
    REQUIRE(scenario.explore->faults.back().range.has_value());
    scenario.explore->faults.pop_back();
    for (auto& [design, expected] : scenario.explore->expect)
        std::erase_if(expected, [](const Expectation& e) { return e.metric == "regions"; });
    return scenario;
}

// What the design's run shows with exactly these faults, through the scenario format.
std::uint32_t violations_with(const std::string& design, const std::string& faults) {
    Scenario scenario = flagship();
    replace_faults(scenario, faults, "--faults");
    const ScenarioOutcome outcome = run_scenario(scenario, scenario.seed, design);
    REQUIRE(outcome.designs.size() == 1);
    return outcome.designs.front().verdict.violations;
}

std::string as_list(const nlohmann::ordered_json& fault) {
    return nlohmann::ordered_json::array({fault}).dump();
}

}  // namespace

TEST_CASE("explore finds the unfenced window, the fenced claim-to-charge window, and nothing for idempotent") {
    const Exploration exploration = run_explore(flagship_listed_lengths(), ExploreOptions{.threads = 2});
    REQUIRE(exploration.designs.size() == 3);

    const auto& unfenced = design_named(exploration, "unfenced");
    CHECK(unfenced.violating() > 0);
    CHECK_FALSE(unfenced.windows.empty());
    for (const auto& window : unfenced.windows)
        CHECK(violation_names(window.violations) == std::vector<std::string>{"double_charges"});

    // The caveat of fencing: between the fenced claim and the charge nothing in the
    // database can stop a holder that paused there.
    const auto& fenced = design_named(exploration, "fenced");
    const auto claim_to_charge =
        std::find_if(fenced.windows.begin(), fenced.windows.end(), [&](const ExploreWindow& w) {
            const TraceEvent& opens = fenced.baseline.events()[fenced.points[w.first].sequence];
            const TraceEvent& closes = fenced.baseline.events()[fenced.points[w.last].sequence];
            return opens.kind == trace_kind::message_sent &&
                   opens.text("label").starts_with("UPDATE renewals SET status='claimed'") &&
                   closes.kind == trace_kind::message_sent && closes.text("label").starts_with("charge customer");
        });
    CHECK(claim_to_charge != fenced.windows.end());
    CHECK(fenced.count_of(Metric::stale_writes_accepted) == 0);

    const auto& idempotent = design_named(exploration, "idempotent");
    CHECK(idempotent.violating() == 0);
    CHECK(idempotent.windows.empty());
    CHECK(idempotent.placements.size() == idempotent.points.size() * 6);  // six pause lengths at every point
    CHECK(exploration.held());
}

TEST_CASE("every window's fault objects replay: the first and last violate, the safe ones beside them do not") {
    const Exploration exploration = run_explore(flagship_listed_lengths(), ExploreOptions{.threads = 2});
    for (const auto& design : exploration.designs) {
        for (const auto& window : design.windows) {
            INFO(design.name << " window on " << window.node << " from e" << design.points[window.first].sequence);
            const auto first = fault_object(design, FaultChoice{window.family, window.first, window.first_size});
            const auto last = fault_object(design, FaultChoice{window.family, window.last, window.last_size});
            CHECK(violations_with(design.name, as_list(first)) != 0);
            CHECK(violations_with(design.name, as_list(last)) != 0);
            if (window.safe_before)
                CHECK(violations_with(design.name,
                                      as_list(fault_object(design, FaultChoice{window.family, *window.safe_before,
                                                                               window.first_size}))) == 0);
            if (window.safe_after)
                CHECK(violations_with(design.name,
                                      as_list(fault_object(design, FaultChoice{window.family, *window.safe_after,
                                                                               window.last_size}))) == 0);
        }
    }
}

TEST_CASE("explore's JSON is the same whatever the thread count, including more threads than placements") {
    // The flagship's block, a length listed and a range, on one server (tests/small_explore.hpp).
    const Scenario scenario =
        load_scenario_file(write_temp("threads.json", flagship_with_small_explore().dump(2)), metric_names());
    const std::string one = explore_json(run_explore(scenario, ExploreOptions{.threads = 1}), true).dump();
    const std::string three = explore_json(run_explore(scenario, ExploreOptions{.threads = 3}), true).dump();
    CHECK(one == three);
    const Scenario small = tiny_with_explore(R"({ "faults": [ { "pause": "server-1", "for": "40s" } ] })");
    const std::string alone = explore_json(run_explore(small, ExploreOptions{.threads = 1}), true).dump();
    const std::string crowded = explore_json(run_explore(small, ExploreOptions{.threads = 500}), true).dump();
    CHECK(alone == crowded);
}

TEST_CASE("sizes relative to the TTL resolve per design, and a size that comes to nothing is refused") {
    const Scenario scenario =
        tiny_with_explore(R"({ "faults": [ { "pause": "server-1", "for": ["ttl", "ttl+1ms", "ttl-1s", "ttl/3"] } ] })");
    const Exploration exploration = run_explore(scenario, ExploreOptions{.design = "unfenced"});
    REQUIRE(exploration.designs.size() == 1);
    const auto& sizes = exploration.designs.front().families.front().sizes;
    REQUIRE(sizes.size() == 4);
    CHECK(*sizes[0] == seconds(30));
    CHECK(*sizes[1] == seconds(30) + milliseconds(1));
    CHECK(*sizes[2] == seconds(29));
    CHECK(*sizes[3] == seconds(10));

    const Scenario nothing = tiny_with_explore(R"({ "faults": [ { "pause": "server-1", "for": ["ttl-30s"] } ] })");
    CHECK_THROWS_WITH(run_explore(nothing, ExploreOptions{}),
                      Catch::Contains("\"ttl-30s\" comes to 0s") && Catch::Contains("stay above zero"));
}

TEST_CASE("depth 2 tries every unordered pair once and says how many ordered pairs it pruned") {
    const Scenario one = tiny_with_explore(R"({ "faults": [ { "pause": "server-1", "for": "40s" } ] })");
    const auto singles = run_explore(one, ExploreOptions{.design = "idempotent"}).designs.front().placements.size();
    const Scenario two = tiny_with_explore(R"({ "faults": [ { "pause": "server-1", "for": "40s" } ], "depth": 2 })");
    const Exploration explored = run_explore(two, ExploreOptions{.design = "idempotent"});
    const auto& pairs = explored.designs.front();
    CHECK(pairs.placements.size() == singles * (singles - 1) / 2);
    CHECK(pairs.repeated_pairs == singles * singles - pairs.placements.size());
    for (const auto& placement : pairs.placements) CHECK(placement.faults.size() == 2);
    CHECK(pairs.windows.empty());  // windows are for single faults

    // More than a million pairs: the single placements times sizes enough to pass it.
    const std::uint64_t sizes_needed = 1500 / singles + 1;
    std::vector<std::string> sizes;
    for (std::uint64_t s = 1; s <= sizes_needed; ++s) sizes.push_back(fmt::format("\"{}s\"", s));
    const Scenario too_many = tiny_with_explore(fmt::format(
        R"({{ "faults": [ {{ "pause": "server-1", "for": [{}] }} ], "depth": 2 }})", fmt::join(sizes, ", ")));
    CHECK_THROWS_WITH(run_explore(too_many, ExploreOptions{}),
                      Catch::Contains("depth 2 pairs") && Catch::Contains("use depth 1"));
}

TEST_CASE("more than a million placements of one fault are refused before any runs, naming what to do instead") {
    const Scenario one = tiny_with_explore(R"({ "faults": [ { "pause": "server-1", "for": "40s" } ] })");
    const auto points = run_explore(one, ExploreOptions{.design = "idempotent"}).designs.front().placements.size();
    std::vector<std::string> sizes;
    for (std::uint64_t s = 1; s <= max_explore_placements / points + 1; ++s)
        sizes.push_back(fmt::format("\"{}ms\"", s));
    const Scenario too_many = tiny_with_explore(
        fmt::format(R"({{ "faults": [ {{ "pause": "server-1", "for": [{}] }} ] }})", fmt::join(sizes, ", ")));
    CHECK_THROWS_WITH(run_explore(too_many, ExploreOptions{.design = "idempotent"}),
                      Catch::Contains("more than the 1,000,000 locksim tries") &&
                          Catch::Contains("a range of lengths, {\"from\", \"to\"}"));
}

TEST_CASE("an explore block that cannot be used is refused at load with its place and what was expected") {
    const auto refusal = [](const std::string& explore) {
        try {
            tiny_with_explore(explore);
        } catch (const ScenarioError& error) {
            return std::string(error.what());
        }
        return std::string("accepted");
    };
    CHECK_THAT(refusal(R"({ "faults": [] })"),
               Catch::Contains("/explore/faults") && Catch::Contains("at least one fault"));
    CHECK_THAT(refusal(R"({ "faults": [ { "pause": "server-9", "for": "1s" } ] })"),
               Catch::Contains("/explore/faults/0/pause"));
    CHECK_THAT(refusal(R"({ "faults": [ { "pause": "server-1", "for": "ttl*2" } ] })"),
               Catch::Contains("/explore/faults/0/for") && Catch::Contains("\"ttl/3\""));
    CHECK_THAT(refusal(R"({ "faults": [ { "pause": "server-1", "for": "-1s" } ] })"),
               Catch::Contains("without a sign"));
    CHECK_THAT(refusal(R"({ "faults": [ { "pause": "server-1", "for": "1s" } ], "depth": 3 })"),
               Catch::Contains("/explore/depth"));
    CHECK_THAT(
        refusal(R"({ "faults": [ { "pause": "server-1", "for": "1s" } ], "expect": { "fenced": { "windows": 0 } } })"),
        Catch::Contains("no design is called \"fenced\""));
    CHECK_THAT(
        refusal(
            R"({ "faults": [ { "pause": "server-1", "for": "1s" } ], "expect": { "unfenced": { "charges": 0 } } })"),
        Catch::Contains("unknown metric \"charges\""));
    CHECK(
        refusal(
            R"({ "faults": [ { "clock_step": ["lock-store"], "by": ["-40s", "+40s"] }, { "crash": "servers", "restart_after": [null, "1s"] } ] })") ==
        "accepted");
}

TEST_CASE("locksim explore prints the windows with replay commands that show the violation") {
    const auto ran = run_locksim("explore scenarios/gc-pause-40s.json --design fenced -j 2");
    CHECK(ran.exit_code == 0);
    const auto replay_at = ran.out.find("replay: ");
    REQUIRE(replay_at != std::string::npos);
    const std::string command = ran.out.substr(replay_at + 8, ran.out.find('\n', replay_at) - replay_at - 8);
    REQUIRE(command.find("--faults '") != std::string::npos);
    // The command as printed, through a shell, from locksim's own path onwards.
    const auto replayed = run_locksim(command.substr(command.find(" run ") + 1));
    CHECK(replayed.exit_code == 1);
    CHECK(replayed.out.find("double_charges expected 0, got 1") != std::string::npos);

    const auto none = run_locksim("explore scenarios/clock-chaos.json");
    CHECK(none.exit_code == 2);
    CHECK(none.err.find("has no \"explore\" block") != std::string::npos);
}

TEST_CASE("check runs explore and sweep blocks as test cases whose failures name the first failing run and replay it") {
    auto flagship = flagship_with_small_explore();
    flagship["explore"]["expect"]["fenced"] = {{"violating_placements", 0}, {"regions", 0}};
    const auto explored = write_temp("explore-check.json", flagship.dump(2));
    const auto junit = write_temp("explore-check.xml", "");
    const auto ran = run_locksim("check " + explored + " --junit " + junit);
    CHECK(ran.exit_code == 1);
    CHECK(ran.out.find("PASS gc-pause-40s explore: idempotent") != std::string::npos);
    const auto failure = ran.out.find("FAIL gc-pause-40s explore: fenced: violating_placements expected 0, got ");
    REQUIRE(failure != std::string::npos);
    const std::string line = ran.out.substr(failure, ran.out.find('\n', failure) - failure);
    CHECK(line.find("first violating placement: double charge after server-1") != std::string::npos);
    CHECK(line.find("--design fenced --faults '[{\"pause\":\"server-1\"") != std::string::npos);
    CHECK(ran.out.find("; regions expected 0, got ") != std::string::npos);
    CHECK(ran.out.find("first violating region: double charge on server-1, starts ") != std::string::npos);
    CHECK(slurp(junit).find("<testcase classname=\"gc-pause-40s\" name=\"explore: fenced\"") != std::string::npos);

    std::string pauses = slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/random-gc-pauses.json");
    const std::string fenced = R"("fenced": { "runs_with_violation": { "at_least": 1 } },)";
    REQUIRE(pauses.find(fenced) != std::string::npos);
    pauses.replace(pauses.find(fenced), fenced.size(), R"("fenced": { "runs_with_violation": 0 },)");
    const auto swept = run_locksim("check " + write_temp("sweep-check.json", pauses) + " -j 3");
    CHECK(swept.exit_code == 1);
    CHECK(swept.out.find("PASS random-gc-pauses sweep of 2000 seeds: idempotent") != std::string::npos);
    const auto sweep_failure = swept.out.find(
        "FAIL random-gc-pauses sweep of 2000 seeds: fenced (a fault reached the lock in 438 of 2000 runs): "
        "runs_with_violation expected 0, got ");
    REQUIRE(sweep_failure != std::string::npos);
    CHECK(swept.out.find("first failing seeds: ", sweep_failure) != std::string::npos);
    CHECK(swept.out.find("--design fenced\n", sweep_failure) != std::string::npos);
}
