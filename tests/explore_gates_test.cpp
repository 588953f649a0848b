// checks/explore_verdict.hpp: an explore block's gate counts everything explored. A gate
// of the listed sizes' placements alone fails beside the regions a range finds, a gate of
// the regions alone fails beside the listed sizes' violating placements, and each failure
// says how to replay what it could not vouch for; the text table shows a kind of violation
// found only in regions as "0 + N regions", as the vulnerability map does.
#include <catch2/catch.hpp>

#include "tests/program_support.hpp"
#include "tests/small_explore.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

#include "checks/exploration.hpp"
#include "runners/explore_runner.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// The flagship's small exploration (tests/small_explore.hpp) with these faults, and `expect`
// as the fenced design's only explore expectations.
std::string flagship_exploring(const std::string& faults, const nlohmann::ordered_json& expect) {
    auto scenario = flagship_with_small_explore();
    scenario["explore"]["faults"] = nlohmann::ordered_json::parse(faults);
    scenario["explore"]["expect"] = {{"fenced", expect}};
    return scenario.dump(2);
}

// A pause of 1 s breaks nothing; pauses of 29 s to 31 s leave regions where server 1's
// stale claim or charge gets in.
const std::string safe_list_and_violating_range =
    R"([{"pause": "server-1", "for": ["1s"]}, {"pause": "server-1", "for": {"from": "29s", "to": "31s"}}])";
// A pause of 40 s double-charges at the listed strike points; no pause shorter than 1 s does.
const std::string violating_list_and_safe_range =
    R"([{"pause": "server-1", "for": ["40s"]}, {"pause": "server-1", "for": {"from": "1ms", "to": "1s"}}])";

// The expectation of `metric` among a design's in explore's JSON.
nlohmann::json expectation_of(const nlohmann::json& design, const std::string& metric) {
    for (const auto& expectation : design.at("expectations"))
        if (expectation.at("metric") == metric) return expectation;
    return nullptr;
}

// The line of `text` that holds `needle`, or "" when none does.
std::string line_with(const std::string& text, const std::string& needle) {
    const auto at = text.find(needle);
    if (at == std::string::npos) return "";
    const auto start = text.rfind('\n', at);
    const auto from = start == std::string::npos ? 0 : start + 1;
    return text.substr(from, text.find('\n', at) - from);
}

// The command after "replay: " on the line that holds `needle`, from locksim's own path on.
std::string replay_after(const std::string& text, const std::string& needle) {
    const std::string line = line_with(text, needle);
    const auto replay = line.find("replay: ", line.find(needle));
    if (replay == std::string::npos) return "";
    const std::string command = line.substr(replay + 8);
    const auto run = command.find(" run ");
    return run == std::string::npos ? "" : command.substr(run + 1);
}

// The design, in explore's JSON, failed an implied expectation of 0 of `total`, finding `found`.
void check_failed_implied_zero(const nlohmann::json& design, const std::string& total, std::uint64_t found) {
    const auto implied = expectation_of(design, total);
    REQUIRE(implied.is_object());
    CHECK(implied.at("implied") == true);
    CHECK(implied.at("held") == false);
    CHECK(implied.at("expected") == 0);
    CHECK(implied.at("actual") == found);
}

// `explore FILE --design fenced` fails with `total` expected 0, finding `found`, and the
// command after "replay: " on its line `first` ("first violating region: ") fails too: that
// run, for what it shows.
ProgramRun fenced_failure_replayed(const std::string& file, const std::string& total, std::uint64_t found,
                                   const std::string& first) {
    const auto text = run_locksim("explore " + file + " --design fenced -j 2");
    CHECK(text.exit_code == 1);
    const std::string failure = line_with(text.out, "FAIL gc-pause-40s fenced: " + total + " expected 0 (");
    CHECK(failure.find(fmt::format("), got {}", found)) != std::string::npos);
    const std::string replay = replay_after(text.out, first);
    REQUIRE_FALSE(replay.empty());
    const auto replayed = run_locksim(replay);
    CHECK(replayed.exit_code == 1);
    return replayed;
}

}  // namespace

TEST_CASE("a gate of violating placements alone fails beside the regions a range finds, and replays one") {
    const auto file = write_temp("gate-placements-only.json",
                                 flagship_exploring(safe_list_and_violating_range, {{"violating_placements", 0}}));

    const auto json_run = run_locksim("explore " + file + " --design fenced --format json -j 2");
    const auto explored = nlohmann::json::parse(json_run.out);
    const auto& fenced = explored.at("designs").at(0);
    REQUIRE(fenced.at("violating_placements") == 0);
    const auto regions = fenced.at("regions").size();
    REQUIRE(regions > 0);
    CHECK(json_run.exit_code == 1);
    CHECK(explored.at("held") == false);
    check_failed_implied_zero(fenced, "regions", regions);

    const auto replayed = fenced_failure_replayed(file, "regions", regions, "first violating region: ");
    const std::string first_violation = fenced.at("regions").at(0).at("violations").at(0);
    CHECK(replayed.out.find(first_violation + " expected 0") != std::string::npos);

    const auto checked = run_locksim("check " + file + " -j 2");
    CHECK(checked.exit_code == 1);
    const std::string check_failure = line_with(checked.out, "FAIL gc-pause-40s explore: fenced: regions expected 0 (");
    CHECK(check_failure.find("first violating region: ") != std::string::npos);
}

TEST_CASE("the text table shows a kind of violation found only in regions as its placements plus its regions") {
    const auto file = write_temp("regions-in-table.json",
                                 flagship_exploring(safe_list_and_violating_range, {{"regions", {{"at_least", 1}}}}));
    const auto explored = nlohmann::json::parse(run_locksim("explore " + file + " --format json -j 2").out);
    const auto text = run_locksim("explore " + file + " -j 2");
    for (const auto& design : explored.at("designs")) {
        const std::string name = design.at("name");
        INFO(name);
        const auto& regions = design.at("regions");
        const auto double_charging = std::count_if(regions.begin(), regions.end(), [](const nlohmann::json& region) {
            const auto& violations = region.at("violations");
            return std::find(violations.begin(), violations.end(), "double_charges") != violations.end();
        });
        if (double_charging == 0) continue;
        const std::uint64_t placements = design.at("placements_by_violation").at("double_charges");
        std::string row;
        for (const auto& line : lines_of(text.out))
            if (line.starts_with(name + " ")) {
                row = line;
                break;
            }
        CHECK(row.find(fmt::format("{} + {} region{}", placements, double_charging, double_charging == 1 ? "" : "s")) !=
              std::string::npos);
    }
}

TEST_CASE("a gate of regions alone fails beside the violating placements of the listed sizes, and replays one") {
    const auto file =
        write_temp("gate-regions-only.json", flagship_exploring(violating_list_and_safe_range, {{"regions", 0}}));

    const auto json_run = run_locksim("explore " + file + " --design fenced --format json -j 2");
    const auto explored = nlohmann::json::parse(json_run.out);
    const auto& fenced = explored.at("designs").at(0);
    REQUIRE(fenced.at("regions").empty());
    const std::uint64_t violating = fenced.at("violating_placements");
    REQUIRE(violating > 0);
    CHECK(json_run.exit_code == 1);
    check_failed_implied_zero(fenced, "violating_placements", violating);

    const auto replayed =
        fenced_failure_replayed(file, "violating_placements", violating, "first violating placement: ");
    // The first violating placement is the first window's first: it shows what the window shows.
    const auto& shown = fenced.at("windows").at(0).at("violations");
    CHECK(std::any_of(shown.begin(), shown.end(), [&replayed](const nlohmann::json& violation) {
        return replayed.out.find(violation.get<std::string>() + " expected 0") != std::string::npos;
    }));
}

TEST_CASE("at depth 2 a gate of windows, which only single faults have, does not vouch for the pairs") {
    const Scenario pairs = tiny_with_explore(
        R"({ "faults": [ { "pause": "server-1", "for": "40s" } ], "depth": 2, "expect": { "unfenced": { "windows": 0 } } })");
    const Exploration exploration = run_explore(pairs, ExploreOptions{.design = "unfenced", .threads = 2});
    const DesignExploration& unfenced = exploration.designs.front();
    REQUIRE(unfenced.windows.empty());
    REQUIRE(unfenced.violating() > 0);
    CHECK_FALSE(exploration.held());
    const auto implied = std::find_if(unfenced.expectations.begin(), unfenced.expectations.end(),
                                      [](const ExpectationResult& r) { return r.expectation.implied; });
    REQUIRE(implied != unfenced.expectations.end());
    CHECK(implied->expectation.metric == "violating_placements");
    CHECK_FALSE(implied->held);
    CHECK(implied->actual == static_cast<std::int64_t>(unfenced.violating()));
}

TEST_CASE("a gate that counts everything its block explores is judged on its own expectations alone") {
    const Scenario singles = tiny_with_explore(
        R"({ "faults": [ { "pause": "server-1", "for": "40s" } ],
             "expect": { "unfenced": { "windows": { "at_least": 1 } }, "idempotent": { "violating_placements": 0 } } })");
    const Exploration exploration = run_explore(singles, ExploreOptions{.threads = 2});
    for (const auto& design : exploration.designs) {
        INFO(design.name);
        REQUIRE(design.expectations.size() == 1);
        CHECK_FALSE(design.expectations.front().expectation.implied);
        CHECK(design.expectations.front().held);
    }
}
