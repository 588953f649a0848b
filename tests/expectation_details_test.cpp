// Expectations that pin who and when (issue 18): the customers charged twice, a pair of
// servers that held at once, the time of the first violation; and the sweep totals of
// overlapping holders and stale writes accepted. Run end to end on gc-pause-40s, whose
// unfenced design charges customer 42 twice at 46.001s after server-1 overlapped with
// server-2 and server-3.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "checks/sweep_summary.hpp"
#include "runners/sweep_runner.hpp"
#include "scenarios/schema/shard_reader.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// gc-pause-40s with the unfenced design's expectations replaced by `expect`.
Scenario gc_pause_expecting(const std::string& expect) {
    std::ifstream in(scenario_path("gc-pause-40s.json"));
    nlohmann::json document = nlohmann::json::parse(in);
    document["designs"]["unfenced"]["expect"] = nlohmann::json::parse(expect);
    return parse_scenario(document.dump(), "gc-pause-40s.json", metric_names());
}

// The unfenced design's results for `expect`, in the order the file lists them.
std::vector<ExpectationResult> judged(const std::string& expect) {
    const ScenarioOutcome outcome = run_scenario(gc_pause_expecting(expect), 1, std::string("unfenced"));
    return design_named(outcome, "unfenced").expectations;
}

}  // namespace

TEST_CASE("expect details: the customers charged twice must be exactly those listed") {
    const auto right = judged(R"({"double_charges": {"customers": [42]}})");
    REQUIRE(right.size() == 6);  // and the implied zeros of the other five violations
    CHECK(right[0].held);
    CHECK(right[0].found == "[42]");

    const auto wrong = judged(R"({"double_charges": {"customers": [41, 42]}})");
    CHECK_FALSE(wrong[0].held);
    CHECK(describe_failure(wrong[0]) == "double_charges expected customers [41, 42], got [42]");

    const auto none = judged(R"({"double_charges": {"customers": []}})");
    CHECK_FALSE(none[0].held);
}

TEST_CASE("expect details: customers and a count in one object are two expectations, each judged") {
    const auto results = judged(R"({"double_charges": {"at_least": 1, "at_most": 1, "customers": [42]}})");
    REQUIRE(results.size() == 8);
    CHECK(results[0].expectation.comparison == Expectation::Comparison::at_least);
    CHECK(results[1].expectation.comparison == Expectation::Comparison::at_most);
    CHECK(results[2].expectation.subject == Expectation::Subject::customers);
    for (std::size_t i = 0; i < 3; ++i) CHECK(results[i].held);
}

TEST_CASE("expect details: an overlap between two named servers, in either order") {
    CHECK(judged(R"({"overlapping_holders": {"between": ["server-1", "server-2"]}})")[0].held);
    CHECK(judged(R"({"overlapping_holders": {"between": ["server-3", "server-1"]}})")[0].held);
    const auto absent = judged(R"({"overlapping_holders": {"between": ["server-2", "server-3"]}})");
    CHECK_FALSE(absent[0].held);
    CHECK(describe_failure(absent[0]) ==
          "overlapping_holders expected one between server-2 and server-3, got server-1 and server-2; server-1 and "
          "server-3");
}

TEST_CASE("expect details: the first violation's true time against at_most and at_least") {
    const auto within = judged(R"({"first_violation_at": {"at_least": "46s", "at_most": "46.001s"}})");
    REQUIRE(within.size() >= 2);
    CHECK(within[0].held);
    CHECK(within[1].held);
    CHECK(within[0].actual == 46'001'000'000);

    const auto early = judged(R"({"first_violation_at": {"at_most": "46s"}})");
    CHECK_FALSE(early[0].held);
    CHECK(describe_failure(early[0]) == "first_violation_at expected at most 46s, got 46.001s");
}

TEST_CASE("expect details: a run without a violation fails any first_violation_at") {
    std::ifstream in(scenario_path("gc-pause-40s.json"));
    nlohmann::json document = nlohmann::json::parse(in);
    document["designs"]["fenced"]["expect"] = nlohmann::json::parse(R"({"first_violation_at": {"at_least": "0s"}})");
    const Scenario scenario = parse_scenario(document.dump(), "gc-pause-40s.json", metric_names());
    const ScenarioOutcome outcome = run_scenario(scenario, 1, std::string("fenced"));
    const auto& result = design_named(outcome, "fenced").expectations[0];
    CHECK_FALSE(result.held);
    CHECK(result.found == "none");
    CHECK(describe_failure(result) == "first_violation_at expected at least 0s, got no violation");
}

TEST_CASE("expect details: the loader refuses who and when where only totals exist") {
    CHECK(says(error_of(R"({"name": "x", "description": "d", "seed": 1, "horizon": "1m", "servers": ["server-1"],
      "lock": {"store": "redis", "key": "k", "ttl": "10s"},
      "job": {"name": "renewals", "at": "00:00", "customers": [1], "period": "p", "work_per_customer": "1s"},
      "network": {"delay": "1ms"}, "fault_generators": [{"pause": "servers", "mean_interval": "1m", "for": "1s"}],
      "designs": {"d": {}}, "sweep": {"seeds": 2, "expect": {"d": {"double_charges": {"customers": [1]}}}}})"),
               "/sweep/expect/d/double_charges/customers: unknown field \"customers\""));
}

TEST_CASE("sweep totals: overlapping holders and stale writes accepted per design, summed over the seeds") {
    const Scenario scenario = load_scenario_file(scenario_path("random-gc-pauses.json"), metric_names());
    const SeedBlock seeds{1, 200};
    const SweepSummary summary = run_sweep(scenario, seeds, 2, [](std::uint64_t) {});
    std::uint64_t overlaps = 0;
    std::uint64_t accepted = 0;
    for (std::uint64_t seed = seeds.first; seed < seeds.first + seeds.count; ++seed) {
        const ScenarioOutcome outcome = run_scenario(scenario, seed, std::string("unfenced"), {}, FaultJudging::off);
        overlaps += design_named(outcome, "unfenced").metrics.overlaps.size();
        accepted +=
            static_cast<std::uint64_t>(design_named(outcome, "unfenced").metrics.value(Metric::stale_writes_accepted));
    }
    const DesignTally& unfenced = design_named(summary, "unfenced");
    CHECK(unfenced.metric_total(Metric::overlapping_holders) == overlaps);
    CHECK(unfenced.metric_total(Metric::overlapping_holders) > 0);
    CHECK(unfenced.metric_total(Metric::stale_writes_accepted) == accepted);
    CHECK(unfenced.total("overlapping_holders") == static_cast<std::int64_t>(overlaps));

    const auto document = sweep_json(summary);
    CHECK(document.at("designs")[0].at("overlapping_holders") == overlaps);
    CHECK(document.at("designs")[0].contains("stale_writes_accepted"));
}

TEST_CASE("sweep totals: a summary without the new totals is refused with what to do") {
    const Scenario scenario = load_scenario_file(scenario_path("random-gc-pauses.json"), metric_names());
    SweepSummary summary = run_sweep(scenario, SeedBlock{1, 3}, 1, [](std::uint64_t) {});
    summary.provenance = SweepProvenance{scenario.content_sha256, "0.1.0", "abc", sweep_command_line(summary, 1)};
    auto document = sweep_json(summary);
    ShardFiles files;
    CHECK_NOTHROW(add_shard_file(files, "shard.json", document.dump()));
    document["designs"][0].erase("overlapping_holders");
    try {
        add_shard_file(files, "shard.json", document.dump());
        FAIL("an old summary was read");
    } catch (const SweepError& error) {
        CHECK(std::string(error.what()).find("written by an older locksim; rerun the shard") != std::string::npos);
    }
}
