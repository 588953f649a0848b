// The one rule of what a violation is and when it fails a run (checks/verdict.hpp): every
// violation a checker flags fails unless the design declares it, a run that charged no one
// fails unless the design says it means that, and `run` and a sweep agree on each seed.
// Settings that certainly leave no work possible are refused at load.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "checks/verdict.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

RunMetrics flagged(Metric metric, std::int64_t charges = 3) {
    RunMetrics metrics;
    metrics.add(Metric::charges, charges);
    metrics.add(metric);
    metrics.flagged.push_back(FlaggedEvent{7, metric, "flagged"});
    return metrics;
}

Expectation expect(std::string metric, std::int64_t value) {
    return Expectation{std::move(metric), Expectation::Comparison::equals, value};
}

bool has_text(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A file of three servers on one Redis lock, whose job charges customers 41 to 44; `more`
// adds top-level fields, `designs` the designs.
std::string renewals_file(const std::string& more, const std::string& designs) {
    return R"({
  "name": "verdict",
  "description": "a test world",
  "seed": 1,
  "horizon": "5m",
  "servers": ["server-1", "server-2", "server-3"],
  "network": { "delay": { "uniform": ["1ms", "3ms"] } },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42, 43, 44], "period": "2026-10", "work_per_customer": "2s" },
  )" + more +
           R"(,
  "designs": )" +
           designs + "\n}\n";
}

}  // namespace

TEST_CASE("verdict: a violation the design's expect does not name fails the run, and naming it declares it") {
    const RunMetrics metrics = flagged(Metric::foreign_releases);
    const Verdict undeclared = judge_run(metrics, {expect("double_charges", 0)}, VerdictContext{});
    CHECK(undeclared.violations == violation_flag(Metric::foreign_releases));
    CHECK(undeclared.undeclared == violation_flag(Metric::foreign_releases));
    CHECK(undeclared.fails());
    const auto failures = verdict_failures(undeclared, metrics, Vocabulary{});
    REQUIRE(failures.size() == 1);
    CHECK_FALSE(failures[0].held);
    CHECK(failures[0].expectation.implied);
    CHECK(describe_failure(failures[0]) ==
          "foreign_releases expected 0 (a violation the design's \"expect\" does not name), got 1");

    // Declared, it is still a violation, which sweeps and explore count.
    const Verdict declared = judge_run(metrics, {expect("foreign_releases", 1)}, VerdictContext{});
    CHECK(declared.violations == violation_flag(Metric::foreign_releases));
    CHECK(declared.undeclared == 0);
    CHECK_FALSE(declared.fails());
    CHECK(verdict_failures(declared, metrics, Vocabulary{}).empty());
}

TEST_CASE("verdict: an efficiency lock's purpose declares its duplicated work, a correctness lock's does not") {
    const RunMetrics metrics = flagged(Metric::duplicate_work_ms, 0);
    const VerdictContext efficiency{LockPurpose::efficiency, false, std::nullopt};
    const VerdictContext correctness{LockPurpose::correctness, false, std::nullopt};
    CHECK(judge_run(metrics, {}, efficiency).undeclared == 0);
    CHECK(judge_run(metrics, {}, correctness).undeclared == violation_flag(Metric::duplicate_work_ms));
    // An index build charges no one by its nature: no verdict of no effects.
    CHECK_FALSE(judge_run(metrics, {}, efficiency).no_effects);
}

TEST_CASE("verdict: a run that charged no one fails with the reason unless the design names charges") {
    const RunMetrics none;
    const Verdict stopped = judge_run(none, {expect("double_charges", 0)}, VerdictContext{{}, true, 3});
    CHECK(stopped.fails());
    CHECK(stopped.violations == 0);
    auto failures = verdict_failures(stopped, none, Vocabulary{});
    REQUIRE(failures.size() == 1);
    CHECK(describe_failure(failures[0]) ==
          "charges expected at least 1 (no effects: the run without faults charged 3), got 0");

    const Verdict never = judge_run(none, {}, VerdictContext{{}, true, 0});
    failures = verdict_failures(never, none, Vocabulary{"user", "email", "email provider", "statement"});
    REQUIRE(failures.size() == 1);
    CHECK(has_text(describe_failure(failures[0]),
                   "the run without faults emailed no one either: its settings leave no work possible"));

    CHECK_FALSE(judge_run(none, {expect("charges", 0)}, VerdictContext{{}, true, 3}).fails());
}

TEST_CASE("verdict: a margin not below the lease is refused at load, naming /job/min_lease_left") {
    const std::string lock = R"("lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s" })";
    const auto file = write_temp("verdict_margin.json",
                                 renewals_file(lock, R"({ "margin-40s": { "job": { "min_lease_left": "40s" } } })"));
    const auto refused = run_locksim("run " + file);
    CHECK(refused.exit_code == 2);
    CHECK(refused.out.empty());
    CHECK(lines_of(refused.err).size() == 1);
    CHECK(std::regex_search(refused.err, std::regex("^" + file +
                                                    ":[0-9]+:[0-9]+: /designs/margin-40s/job/min_lease_left: "
                                                    "expected a margin below the TTL of 30s")));
    // In the base world, a margin equal to the lease.
    const std::string base = renewals_file(lock, R"({ "d": {} })");
    const std::string at_lease = std::regex_replace(base, std::regex("\"work_per_customer\": \"2s\""),
                                                    "\"work_per_customer\": \"2s\", \"min_lease_left\": \"30s\"");
    CHECK(says(error_of(at_lease), "/job/min_lease_left: expected a margin below the TTL of 30s"));
    // ZooKeeper clamps a 60 s session to 20 ticks of 2 s: the TTL a holder gets is 40 s.
    const std::string zookeeper =
        R"("lock": { "store": "zookeeper", "key": "/locks/renewals", "ttl": "60s", "ensemble": 3 })";
    const std::string clamped =
        std::regex_replace(renewals_file(zookeeper, R"({ "d": {} })"), std::regex("\"work_per_customer\": \"2s\""),
                           "\"work_per_customer\": \"2s\", \"min_lease_left\": \"45s\"");
    CHECK(says(error_of(clamped), "expected a margin below the TTL of 40s (zookeeper grants 40s for the ttl of 1m)"));
    // Below the lease it is taken.
    const std::string below = std::regex_replace(base, std::regex("\"work_per_customer\": \"2s\""),
                                                 "\"work_per_customer\": \"2s\", \"min_lease_left\": \"29s\"");
    CHECK(error_of(below) == "no error");
}

TEST_CASE("verdict: a seed with a foreign release fails run exactly when the sweep counts it") {
    // A plain DEL after a pause outlived the lease deletes the next holder's lock; the
    // idempotency key keeps the money right, so the foreign release is the only violation.
    const std::string world =
        R"("lock": { "store": "redis", "key": "lock:renewals", "ttl": "5s", "release": "plain-delete", "retry": { "min": "500ms", "max": "1500ms" } },
  "idempotency_key": "renewal-{customer}-{period}",
  "fault_generators": [ { "pause": "servers", "mean_interval": "10s", "for": { "pareto": { "min": "1s", "alpha": 1.0, "max": "30s" } }, "kind": "gc", "until": "1m" } ])";
    const auto file = write_temp("verdict_foreign.json", renewals_file(world, R"({ "plain-delete": {} })"));
    constexpr int seeds = 30;
    const auto swept = run_locksim("sweep " + file + " --seeds " + std::to_string(seeds) + " --format json");
    REQUIRE(swept.exit_code == 0);
    const auto summary = nlohmann::json::parse(swept.out);
    const auto& design = summary["designs"][0];
    const auto violating = design["runs_with_violation"].get<std::uint64_t>();
    REQUIRE(violating > 0);
    REQUIRE(violating < seeds);
    CHECK(design["double_charges"] == 0);

    std::vector<std::uint64_t> failing;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        const auto ran = run_locksim("run " + file + " --seed " + std::to_string(seed));
        REQUIRE(ran.exit_code != 2);
        if (ran.exit_code == 0) continue;
        failing.push_back(seed);
        CHECK(has_text(ran.out,
                       "FAIL verdict plain-delete: foreign_releases expected 0 (a violation the design's "
                       "\"expect\" does not name), got "));
    }
    CHECK(failing.size() == violating);
    const auto kept = design["failing_seeds"].get<std::vector<std::uint64_t>>();
    CHECK(std::vector<std::uint64_t>(failing.begin(), failing.begin() + static_cast<std::ptrdiff_t>(kept.size())) ==
          kept);
}

TEST_CASE("verdict: a design whose faults stop all work fails check with the reason") {
    // The lock store crashes before anyone asks and never comes back: no one charges.
    const std::string world =
        R"("lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s", "retry": { "min": "1s", "max": "2s" } },
  "faults": [ { "crash": "lock-store", "at": "0s" } ])";
    const auto file = write_temp("verdict_no_effects.json",
                                 renewals_file(world, R"({ "stopped": {}, "meant": { "expect": { "charges": 0,
                                   "items_not_done": { "at_least": 1 }, "unfinished_work": { "at_least": 1 } } } })"));
    const auto checked = run_locksim("check " + file);
    CHECK(checked.exit_code == 1);
    // Its customers never charged and its jobs never finishing fail it too, before the verdict's own reason.
    CHECK(has_text(checked.out, "FAIL verdict stopped: items_not_done expected 0 (a correctness lock), got "));
    CHECK(has_text(checked.out,
                   "; charges expected at least 1 (no effects: the run without faults charged 4), got 0; unfinished at "
                   "300.000s: "));
    CHECK(has_text(checked.out, "PASS verdict meant"));
    const auto ran = run_locksim("run " + file + " --design stopped");
    CHECK(ran.exit_code == 1);
}
