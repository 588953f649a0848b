// The job's shape as an engineer's own: how often the holder renews, and whether the job
// looks at its lease before each item at all.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// gc-pause-40s's world without its pause, one design, with these lock and job fields and
// the design's own `design_fields`.
DesignOutcome run_with(const std::string& lock_extra, const std::string& job_extra,
                       const std::string& design_fields = "") {
    const std::string text = R"({
  "name": "shape", "description": "the job's shape", "seed": 1, "horizon": "5m",
  "servers": ["server-1", "server-2"], "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "lock:renewals", "ttl": "10s")" +
                             lock_extra + R"( },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42, 43, 44, 45, 46], "period": "2026-10",
           "work_per_customer": "4s")" +
                             job_extra + R"( },
  "designs": { "only": {)" + design_fields +
                             R"(} }
})";
    const Scenario scenario = parse_scenario(text, "shape.json", metric_names());
    ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    return std::move(outcome.designs.front());
}

std::vector<Instant> times_of(const DesignOutcome& design, std::string_view kind, const std::string& node) {
    std::vector<Instant> times;
    for (const auto& event : design.trace.events())
        if (event.kind == kind && design.trace.node_name(event.node) == node) times.push_back(event.at);
    return times;
}

}  // namespace

TEST_CASE("the holder renews as often as the lock says, every ttl/3 by default") {
    // The job holds the lock for 24 s: six customers of 4 s each.
    const auto by_default = times_of(run_with("", ""), trace_kind::belief_extended, "server-1");
    const auto every_3s = times_of(run_with(R"(, "renew": "3s")", ""), trace_kind::belief_extended, "server-1");
    // 10 s / 3 = 3.333 s: 7 renewals in 24 s; every 3 s: 8.
    CHECK(by_default.size() == 7);
    CHECK(every_3s.size() == 8);
    REQUIRE(every_3s.size() >= 2);
    // Each renewal waits 3 s after the previous one's reply (two 1 ms hops).
    CHECK(every_3s[1] - every_3s[0] == 3_s + 2_ms);
}

TEST_CASE("a job that does not check its lease before each item never asks, and still stops when told") {
    const DesignOutcome checking = run_with("", "");
    const DesignOutcome trusting = run_with("", R"(, "check_lease": false)");
    CHECK(times_of(checking, trace_kind::belief_checked, "server-1").size() == 6);
    CHECK(times_of(trusting, trace_kind::belief_checked, "server-1").empty());
    CHECK(trusting.metrics.value(Metric::charges) == 6);
}

// How server-1's job run ended.
std::string ending_of(const DesignOutcome& design) {
    for (const auto& event : design.trace.events())
        if (event.kind == trace_kind::job_finished && design.trace.node_name(event.node) == "server-1")
            return std::string(event.text("outcome"));
    return "never ended";
}

TEST_CASE("a job that never asks its lease stops only when a fenced write refuses it, not when its client stops") {
    // Paused for 15 s with a 10 s lease: server-2 takes the lock, and server-1's first renewal
    // after the pause is refused, so its client stops believing. The job never asks.
    const std::string paused = R"("faults": [ { "pause": "server-1", "at": "6s", "for": "15s", "kind": "gc" } ])";
    const DesignOutcome asking = run_with("", "", paused);
    const DesignOutcome trusting = run_with("", R"(, "check_lease": false)", paused);
    REQUIRE_FALSE(times_of(trusting, trace_kind::belief_ended, "server-1").empty());
    CHECK(ending_of(asking) == "stopped: the lock is no longer ours");
    CHECK(ending_of(trusting) == "done");  // it charged on to its last customer
    CHECK(trusting.metrics.value(Metric::double_charges) > asking.metrics.value(Metric::double_charges));
    // Fenced, the database's refusal is what tells it, and it stops there.
    const DesignOutcome fenced = run_with(R"(, "token_counter": "lock:renewals:token")", R"(, "check_lease": false)",
                                          paused + R"(, "fencing": "database")");
    CHECK(ending_of(fenced) == "stopped: the lock is no longer ours");
    CHECK(fenced.metrics.value(Metric::stale_writes_rejected) >= 1);
}

TEST_CASE("a renewal interval that is not shorter than the ttl is refused") {
    CHECK_THROWS_WITH(run_with(R"(, "renew": "10s")", ""),
                      Catch::Contains("/lock/renew") && Catch::Contains("shorter than the ttl (10s)"));
    CHECK_THROWS_WITH(run_with(R"(, "renew": 3)", ""), Catch::Contains("expected true, false, or how often"));
}

TEST_CASE("a server refused the lock skips its run when the job says so, and waits for the lock by default") {
    const auto outcomes = [](const DesignOutcome& design) {
        std::vector<std::string> ends;
        for (const auto& event : design.trace.events())
            if (event.kind == trace_kind::job_finished)
                ends.push_back(design.trace.node_name(event.node) + ": " + std::string(event.text("outcome")));
        return ends;
    };
    // server-1 wins the lock; server-2 is refused at its first attempt.
    CHECK(outcomes(run_with("", R"(, "on_refused": "skip")")) ==
          std::vector<std::string>{"server-2: skipped: another server holds the lock", "server-1: done"});
    CHECK(outcomes(run_with("", "")) == std::vector<std::string>{"server-1: done", "server-2: done"});
    CHECK(run_with("", R"(, "on_refused": "skip")").metrics.value(Metric::charges) == 6);
}

TEST_CASE("skipping when refused needs a store that refuses, and a known answer") {
    const std::string queueing = R"({
  "name": "skip", "description": "a queueing store", "seed": 1,
  "servers": ["server-1"], "network": { "delay": "1ms" },
  "lock": { "store": "zookeeper", "key": "/locks/renewals", "ttl": "10s" },
  "job": { "name": "renewals", "at": "00:00", "customers": [41], "period": "2026-10", "work_per_customer": "1s",
           "on_refused": "skip" },
  "designs": { "only": {} }
})";
    CHECK_THROWS_WITH(parse_scenario(queueing, "skip.json", metric_names()),
                      Catch::Contains("/job/on_refused") && Catch::Contains("queues a waiter"));
    CHECK_THROWS_WITH(run_with("", R"(, "on_refused": "later")"), Catch::Contains("expected \"retry\""));
}
