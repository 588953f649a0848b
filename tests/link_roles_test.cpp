// Link faults aimed by role: {"partition": [[{"role": "holder"}], ["lock-store"]]} cuts
// whichever server holds the lock when it strikes off from the lock store, and heals the
// links it cut; a loss burst or a held message may start at a role too (locksim issue 31).
#include <catch2/catch.hpp>

#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;

namespace {

// partition.json's unfenced design with these faults instead of its own: server-1 holds
// the lock from the start, server-2 takes it when server-1's lease runs out unrenewed.
DesignOutcome partition_unfenced_with(const std::string& faults) {
    Scenario scenario = load_scenario_file(testing::scenario_path("partition.json"), metric_names());
    replace_faults(scenario, faults, "--faults");
    ScenarioOutcome outcome = run_scenario(scenario, scenario.seed, std::string("unfenced"));
    REQUIRE(outcome.designs.size() == 1);
    return std::move(outcome.designs.front());
}

std::vector<const TraceEvent*> events_of(const DesignOutcome& run, const KindSpec& kind) {
    std::vector<const TraceEvent*> found;
    for (const auto& event : run.trace.events())
        if (event.kind == kind) found.push_back(&event);
    return found;
}

}  // namespace

TEST_CASE("a partition aimed at the holder cuts the server holding the lock off from the store, as by its name") {
    const DesignOutcome by_role = partition_unfenced_with(
        R"([{"partition": [[{"role": "holder"}], ["lock-store"]], "at": "5s", "heal_after": "60s"}])");
    const DesignOutcome by_name =
        partition_unfenced_with(R"([{"partition": [["server-1"], ["lock-store"]], "at": "5s", "heal_after": "60s"}])");
    const auto cuts = events_of(by_role, trace_kind::network_partitioned);
    REQUIRE(cuts.size() == 1);
    CHECK(cuts.front()->text("cut") == "server-1 / lock-store");
    CHECK(by_role.metrics.value(Metric::double_charges) >= 1);
    CHECK(by_role.metrics.value(Metric::double_charges) == by_name.metrics.value(Metric::double_charges));
    CHECK(by_role.metrics.value(Metric::charges) == by_name.metrics.value(Metric::charges));
}

TEST_CASE("the heal mends the links the partition cut, not the links of whoever holds the lock by then") {
    // By 32 s server-2 holds the lock (granted at 30.8 s): a heal that looked for the holder
    // again would mend server-2's links (never cut) and leave server-1 cut off for good.
    const DesignOutcome run = partition_unfenced_with(
        R"([{"partition": [[{"role": "holder"}], ["lock-store"]], "at": "5s", "heal_after": "27s"}])");
    const auto heals = events_of(run, trace_kind::network_healed);
    REQUIRE(heals.size() == 1);
    CHECK(heals.front()->at == Instant{} + seconds(32));
    // server-1's renewals, stalled on its stream since the cut, reach the store after the
    // heal, at the stream's next retransmission (10.002 s + 25.4 s): its link was mended.
    bool reached_after_heal = false;
    for (const TraceEvent* delivered : events_of(run, trace_kind::message_delivered))
        if (run.trace.node_name(delivered->node) == "lock-store" &&
            run.trace.node_name(delivered->node_ref("from")) == "server-1" && delivered->at > heals.front()->at)
            reached_after_heal = true;
    CHECK(reached_after_heal);
}

TEST_CASE("a role alone cuts its player off from every other node") {
    const DesignOutcome run =
        partition_unfenced_with(R"([{"partition": {"role": "holder"}, "at": "5s", "heal_after": "60s"}])");
    const auto cuts = events_of(run, trace_kind::network_partitioned);
    REQUIRE(cuts.size() == 1);
    const std::string cut(cuts.front()->text("cut"));
    CHECK_THAT(cut, Catch::StartsWith("server-1 / ") && Catch::Contains("lock-store") && Catch::Contains("server-2") &&
                        Catch::Contains("payment-provider"));
    CHECK(cut.find("server-1", 1) == std::string::npos);  // not cut off from itself
}

TEST_CASE("a loss burst and a held message may start at the holder") {
    // The holder's renewals are held until its lease has run out at the store: server-2
    // takes the lock while server-1 charges on.
    const DesignOutcome held =
        partition_unfenced_with(R"([{"hold_message": [{"role": "holder"}, "lock-store"], "at": "5s", "for": "40s"}])");
    const auto holding = events_of(held, trace_kind::link_holding);
    REQUIRE(holding.size() == 1);
    CHECK(held.trace.node_name(holding.front()->node) == "server-1");
    CHECK(held.trace.node_name(holding.front()->node_ref("to")) == "lock-store");
    CHECK(held.metrics.value(Metric::double_charges) >= 1);

    const DesignOutcome lost =
        partition_unfenced_with(R"([{"loss_burst": [{"role": "holder"}, "lock-store"], "at": "5s", "for": "40s"}])");
    const auto lossy = events_of(lost, trace_kind::link_lossy);
    REQUIRE(lossy.size() == 1);
    CHECK(lost.trace.node_name(lossy.front()->node) == "server-1");
    CHECK(lost.metrics.value(Metric::double_charges) >= 1);
}

TEST_CASE("a link fault aimed at the holder while nobody holds the lock strikes nothing, and is judged inert") {
    // Before the first grant (a millisecond in) there is no holder.
    const DesignOutcome run = partition_unfenced_with(R"([
        {"partition": [[{"role": "holder"}], ["lock-store"]], "at": "0s", "heal_after": "60s"},
        {"hold_message": [{"role": "holder"}, "lock-store"], "at": "0s", "for": "40s"},
        {"loss_burst": [{"role": "holder"}, "lock-store"], "at": "0s", "for": "40s"}])");
    CHECK(events_of(run, trace_kind::network_partitioned).empty());
    CHECK(events_of(run, trace_kind::network_healed).empty());
    CHECK(events_of(run, trace_kind::link_holding).empty());
    CHECK(events_of(run, trace_kind::link_lossy).empty());
    CHECK(run.metrics.value(Metric::double_charges) == 0);
    REQUIRE(run.faults);
    REQUIRE(run.faults->each.size() == 3);
    for (const FaultEffect& effect : run.faults->each) {
        REQUIRE(effect.struck.size() == 1);
        CHECK(effect.struck.front().role == "none");
        CHECK(effect.inert());
    }
    // `run` says so, as for a pause.
    const auto ran = testing::run_locksim(
        "run " + testing::scenario_path("partition.json") +
        R"( --design unfenced --faults '[{"partition": [[{"role": "holder"}], ["lock-store"]], "at": "0s"}]')");
    CHECK_THAT(ran.out, Catch::Contains("INERT") && Catch::Contains("found no one in its role at 0.000s"));
}

TEST_CASE("a link from the role's player to itself carries nothing: the fault touches no message") {
    // server-1 holds the lock at 5 s: the link from the holder to server-1 is no link.
    const DesignOutcome run =
        partition_unfenced_with(R"([{"hold_message": [{"role": "holder"}, "server-1"], "at": "5s", "for": "40s"}])");
    CHECK(events_of(run, trace_kind::link_holding).empty());
    REQUIRE(run.faults);
    CHECK(run.faults->each.front().struck.front().role == "network");
    CHECK(run.faults->each.front().inert());
}

TEST_CASE("a link fault refuses a role where one cannot stand, saying what to write") {
    CHECK_THAT(
        testing::faults_refusal_of("partition.json", R"([{"loss_burst": [{"role": "servers"}, "lock-store"], "at": "1s",
                                                "for": "1s"}])"),
        Catch::Contains("/0/loss_burst/0/role") && Catch::Contains("name the servers"));
    CHECK_THAT(testing::faults_refusal_of("partition.json",
                                          R"([{"hold_message": ["lock-store", {"role": "holder"}], "at": "1s",
                                                "for": "1s"}])"),
               Catch::Contains("/0/hold_message/1") && Catch::Contains("a role may stand only at the first end"));
    CHECK_THAT(testing::faults_refusal_of("partition.json",
                                          R"([{"partition": [["lock-store"], [{"role": "holder"}]], "at": "1s"}])"),
               Catch::Contains("/0/partition/1/0") && Catch::Contains("a role may stand only on side a"));
    CHECK_THAT(
        testing::faults_refusal_of(
            "partition.json", R"([{"partition": [[{"role": "holder"}, "server-3"], ["lock-store"]], "at": "1s"}])"),
        Catch::Contains("/0/partition/0/0") && Catch::Contains("a role stands alone on side a"));
    CHECK_THAT(testing::faults_refusal_of("partition.json", R"([{"partition": {"role": "trigger"}, "at": "1s"}])"),
               Catch::Contains("/0/partition/role") && Catch::Contains("this fault has no \"when\""));
    CHECK_THAT(testing::faults_refusal_of("redlock-pause.json",
                                          R"([{"hold_message": [{"role": "primary"}, "server-1"], "at": "1s",
                                                    "for": "1s"}])"),
               Catch::Contains("/0/hold_message/0/role") && Catch::Contains("no primary or leader"));
}

TEST_CASE("a generator's link may start at a role, resolved at each strike") {
    const Scenario drawn = parse_scenario(R"({
  "name": "drawn", "description": "drawn holds", "seed": 3, "horizon": "5m",
  "servers": ["server-1", "server-2"], "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s", "retry": { "min": "1s", "max": "2s" } },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42, 43, 44], "period": "2026-10", "work_per_customer": "4s" },
  "fault_generators": [ { "hold_message": [{"role": "holder"}, "lock-store"], "mean_interval": "20s", "for": "40s" } ],
  "designs": { "d": {} } })",
                                          "drawn.json", metric_names());
    ScenarioOutcome outcome = run_scenario(drawn, drawn.seed);
    const DesignOutcome& run = outcome.designs.front();
    const auto holding = events_of(run, trace_kind::link_holding);
    REQUIRE_FALSE(holding.empty());
    for (const TraceEvent* event : holding) CHECK(run.trace.node_name(event->node).starts_with("server-"));
}
