// models/leader_loop.cpp: a leader elected for a service works through a queue every
// `every` while it leads, from winning the election until it notices it lost, and the
// service stops at `until`. Items stay pending in the database until sent; more arrive.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "models/trace_kinds.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::design_named;
using locksim::testing::error_of;
using locksim::testing::says;

namespace {

constexpr const char* kubernetes_lease =
    R"({ "store": "kubernetes-lease", "key": "export", "ttl": "15s", "renew_deadline": "10s", "retry_period": "2s" })";
constexpr const char* redis_lease = R"({ "store": "redis", "key": "export", "ttl": "15s" })";

// Two exporters; one pending item and one more every 100 s; each item takes 5 s to send;
// the service runs five minutes. `faults` and `more` (further designs) as given.
std::string exporters(const std::string& lock, const std::string& faults = "[]", const std::string& queue = "",
                      const std::string& extra_world = "") {
    return R"({
  "name": "exporters", "description": "Two exporters elect a leader, which sends the pending items.",
  "seed": 1, "horizon": "30m",
  "servers": ["exporter-1", "exporter-2"],
  "network": { "delay": "1ms" },
  "lock": )" +
           lock + R"(,
  "job": { "kind": "leader-loop", "name": "export", "at": "00:00", "every": "60s", "until": "5m",
           "queue": )" +
           (queue.empty() ? R"({ "pending": [1], "arrive": { "every": "100s" } })" : queue) + R"(,
           "work_per_item": "5s" },)" +
           extra_world + R"(
  "faults": )" +
           faults + R"(,
  "designs": { "only": {} }
})";
}

DesignOutcome run_exporters(const std::string& text) {
    const Scenario scenario = parse_scenario(text, "exporters.json", metric_names());
    return design_named(run_scenario(scenario, scenario.seed), "only");
}

// How many times each item was charged.
std::map<std::int64_t, int> charges_by_item(const DesignOutcome& run) {
    std::map<std::int64_t, int> charges;
    for (const auto* event : events_of(run.trace, trace_kind::provider_charged.name))
        ++charges[event->integer("customer")];
    return charges;
}

}  // namespace

TEST_CASE("a leader sends each pending item once, and the items that arrive while the service runs") {
    const auto run = run_exporters(exporters(kubernetes_lease));
    // Arrivals at 100 s and 200 s; the one due at 300 s falls at the service's stop.
    const auto arrived = events_of(run.trace, trace_kind::queue_arrived.name);
    REQUIRE(arrived.size() == 2);
    CHECK(arrived[0]->integer("customer") == 2);
    CHECK(arrived[0]->at == at(100_s));
    CHECK(arrived[1]->integer("customer") == 3);
    CHECK(charges_by_item(run) == std::map<std::int64_t, int>{{1, 1}, {2, 1}, {3, 1}});
    // Only the first elected ever led: one term, ended by the stop, its lease released.
    const auto started = events_of(run.trace, trace_kind::job_started.name);
    REQUIRE(started.size() == 1);
    CHECK(run.trace.node_name(started[0]->node) == "exporter-1");
    const auto finished = events_of(run.trace, trace_kind::job_finished.name);
    REQUIRE(finished.size() == 1);
    CHECK(finished[0]->text("outcome") == "done: the service was stopped");
    CHECK(events_of(run.trace, trace_kind::lock_released.name).size() == 1);
    // The run ends by itself soon after the stop, not at its horizon.
    CHECK_FALSE(run.summary.horizon_reached);
    CHECK(run.summary.ended_at < at(6_min));
    CHECK(run.held());
}

TEST_CASE("the leader works a tick every interval: an item waits for the next tick after it arrives") {
    const auto run = run_exporters(exporters(kubernetes_lease));
    const auto preparing = events_of(run.trace, trace_kind::job_preparing.name);
    REQUIRE(preparing.size() == 3);
    // Ticks at about 0, 65, 125, 190 and 250 s, each 60 s after the last one's work ended
    // (item 1 took 5 s): item 2 (arrived 100 s) is sent at the tick near 125 s, item 3
    // (200 s) at the one near 250 s.
    CHECK(preparing[1]->at > at(125_s));
    CHECK(preparing[1]->at < at(126_s));
    CHECK(preparing[2]->at > at(250_s));
    CHECK(preparing[2]->at < at(251_s));
}

TEST_CASE(
    "a leader frozen between two ticks wakes still leading under a Kubernetes Lease and sends beside the new one") {
    // Exporter 1 sends item 1 and sleeps; frozen from 70 s to 143 s, it loses the Lease to
    // exporter 2 at about 84 s without knowing. It wakes as its tick falls due, reads item 2
    // (arrived at 100 s) as pending and sends it, while exporter 2's tick at about 144 s
    // reads the same item before either has marked it sent.
    const std::string freeze = R"([{ "pause": "exporter-1", "at": "70s", "for": "73s" }])";
    const auto lease = run_exporters(exporters(kubernetes_lease, freeze));
    CHECK(lease.metrics.value("double_charges") == 1);
    CHECK(charges_by_item(lease)[2] == 2);
    const auto preparing = events_of(lease.trace, trace_kind::job_preparing.name);
    REQUIRE(preparing.size() >= 3);
    CHECK(lease.trace.node_name(preparing[1]->node) == "exporter-1");
    CHECK(preparing[1]->integer("customer") == 2);
    CHECK(preparing[1]->at >= at(143_s));
    CHECK(lease.trace.node_name(preparing[2]->node) == "exporter-2");
    CHECK(preparing[2]->integer("customer") == 2);

    // A Redis lease the leader times by its own clock: it wakes, sees the lease ran out,
    // and stops before its tick.
    const auto redis = run_exporters(exporters(redis_lease, freeze));
    CHECK(redis.metrics.value("double_charges") == 0);
    CHECK(charges_by_item(redis) == std::map<std::int64_t, int>{{1, 1}, {2, 1}, {3, 1}});

    // An idempotency key per item makes the second send a repeat.
    const auto keyed = run_exporters(exporters(kubernetes_lease, freeze, "", R"(
  "idempotency_key": "item-{customer}",)"));
    CHECK(keyed.metrics.value("double_charges") == 0);
    CHECK(events_of(keyed.trace, trace_kind::provider_replayed.name).size() == 1);
}

TEST_CASE("a leader that noticed its loss stands again and leads once it wins") {
    // Exporter 1 is cut off from the API server from 10 s to 60 s: its renewal round fails,
    // it stops leading, and exporter 2 takes over. Exporter 1 stands again at once.
    const auto run = run_exporters(
        exporters(kubernetes_lease,
                  R"([{ "partition": [["exporter-1"], ["kube-apiserver"]], "at": "10s", "heal_after": "50s" }])"));
    const auto finished = events_of(run.trace, trace_kind::job_finished.name);
    REQUIRE(finished.size() == 2);
    CHECK(run.trace.node_name(finished[0]->node) == "exporter-1");
    CHECK(finished[0]->text("outcome") == "stopped: the lock is no longer ours");
    CHECK(run.trace.node_name(finished[1]->node) == "exporter-2");
    const auto campaigning = events_of(run.trace, trace_kind::job_campaigning.name);
    CHECK(campaigning.size() == 3);  // both at the start, exporter 1 again after its loss
    CHECK(charges_by_item(run) == std::map<std::int64_t, int>{{1, 1}, {2, 1}, {3, 1}});
}

TEST_CASE("without a lock every replica leads, and each sends every item") {
    const auto run = run_exporters(exporters(R"({ "store": "none" })"));
    CHECK(charges_by_item(run) == std::map<std::int64_t, int>{{1, 2}, {2, 2}, {3, 2}});
    CHECK(run.metrics.value("double_charges") == 3);
}

TEST_CASE("items that arrive at random come from the seed's own stream, about one per mean interval") {
    const std::string queue = R"({ "arrive": { "mean_interval": "10s" } })";
    const auto arrivals = [&](std::uint64_t seed) {
        const Scenario scenario = parse_scenario(exporters(redis_lease, "[]", queue), "exporters.json", metric_names());
        const auto outcome = run_scenario(scenario, seed);
        std::vector<std::int64_t> times;
        for (const auto* event : events_of(outcome.designs.front().trace, trace_kind::queue_arrived.name))
            times.push_back(event->at.ns);
        return times;
    };
    const auto once = arrivals(4);
    CHECK(once == arrivals(4));
    CHECK(once != arrivals(5));
    // 300 s at one per 10 s: 30 expected, sd 5.5; over 20 seeds the mean's sd is 1.2.
    std::size_t total = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) total += arrivals(seed).size();
    CHECK(static_cast<double>(total) / 20 == Approx(30.0).margin(5.0));
    // Numbered from 1 when nothing is pending at the start.
    const Scenario scenario = parse_scenario(exporters(redis_lease, "[]", queue), "exporters.json", metric_names());
    const auto outcome = run_scenario(scenario, 4);
    CHECK(events_of(outcome.designs.front().trace, trace_kind::queue_arrived.name).front()->integer("customer") == 1);
}

TEST_CASE("a leader loop is refused a queue without work, two arrival rules, or a stop before its start") {
    const auto with_queue = [](const std::string& queue) { return error_of(exporters(redis_lease, "[]", queue)); };
    CHECK(says(with_queue(R"({ "pending": [] })"),
               "/job/queue: expected \"pending\" items or items that \"arrive\": a queue that never holds one is no "
               "work"));
    CHECK(says(with_queue(R"({ "pending": [1], "arrive": { "every": "1m", "mean_interval": "1m" } })"),
               "/job/queue/arrive: expected \"every\" (one item each interval) or \"mean_interval\""));
    CHECK(says(with_queue(R"({ "pending": [1, 2, 1] })"), "/job/queue/pending/2: item 1 is listed twice"));
    CHECK(
        says(with_queue(R"({ "arrive": { "every": "1ms" } })"),
             "/job/queue/arrive/every: expected an interval that brings at most 100000 items while the service runs"));
    const auto with = [](const std::string& from, const std::string& to) {
        std::string text = exporters(redis_lease);
        return error_of(text.replace(text.find(from), from.size(), to));
    };
    CHECK(says(with(R"("until": "5m")", R"("until": "0s")"),
               "/job/until: expected a time after the service starts (\"at\", 0.000s)"));
    CHECK(says(with(R"("work_per_item")", R"("work_per_customer")"),
               "/job/work_per_customer: unknown field \"work_per_customer\""));
}
