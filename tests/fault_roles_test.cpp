// Faults aimed by role: {"role": "holder"} strikes whichever server holds the lock when
// the fault fires, so a pause meant for the holder cannot silently land on a waiting one.
#include <catch2/catch.hpp>

#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

#include <string>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;

namespace {

DesignOutcome unfenced_with(const std::string& faults) {
    Scenario scenario =
        load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json", metric_names());
    replace_faults(scenario, faults, "--faults");
    ScenarioOutcome outcome = run_scenario(scenario, scenario.seed, std::string("unfenced"));
    REQUIRE(outcome.designs.size() == 1);
    return std::move(outcome.designs.front());
}

std::vector<std::string> paused_nodes(const DesignOutcome& design) {
    std::vector<std::string> nodes;
    for (const auto& event : design.trace.events())
        if (event.kind == trace_kind::node_paused) nodes.push_back(design.trace.node_name(event.node));
    return nodes;
}

}  // namespace

TEST_CASE("a pause aimed at the holder strikes the server holding the lock, where a pause by name may miss it") {
    // At 6 s server-1 holds the lock and server-2 waits for it.
    const DesignOutcome by_role = unfenced_with(R"([{"pause": {"role": "holder"}, "at": "6s", "for": "40s"}])");
    CHECK(paused_nodes(by_role) == std::vector<std::string>{"server-1"});
    CHECK(by_role.metrics.value(Metric::double_charges) == 1);

    const DesignOutcome waiting = unfenced_with(R"([{"pause": "server-2", "at": "6s", "for": "40s"}])");
    CHECK(paused_nodes(waiting) == std::vector<std::string>{"server-2"});
    CHECK(waiting.metrics.value(Metric::double_charges) == 0);  // the silent false pass a role avoids
}

TEST_CASE("a fault aimed at the holder while nobody holds the lock strikes no one") {
    // Before the first grant (a millisecond in) there is no holder.
    const DesignOutcome early = unfenced_with(R"([{"pause": {"role": "holder"}, "at": "0s", "for": "40s"},
                                                  {"crash": {"role": "holder"}, "at": "0s"}])");
    CHECK(paused_nodes(early).empty());
    CHECK(early.metrics.value(Metric::double_charges) == 0);
    CHECK(early.metrics.value(Metric::charges) == 3);
}

TEST_CASE("an unknown role is refused with the place and the roles there are") {
    CHECK_THAT(
        testing::faults_refusal_of("gc-pause-40s.json", R"([{"pause": {"role": "leader"}, "at": "1s", "for": "1s"}])"),
        Catch::Contains("/0/pause/role") && Catch::Contains("expected \"holder\""));
    CHECK_THAT(
        testing::faults_refusal_of("gc-pause-40s.json", R"([{"pause": {"role": "trigger"}, "at": "1s", "for": "1s"}])"),
        Catch::Contains("/0/pause/role") && Catch::Contains("this fault has no \"when\""));
}

TEST_CASE("a fault aimed at the trigger strikes the node that recorded the event, whichever it is") {
    // Customer 43 is prepared by whichever server holds the lock then: the role finds it.
    const DesignOutcome run = unfenced_with(
        R"([{"pause": {"role": "trigger"}, "for": "1s", "when": {"event": "job.preparing", "customer": 43}}])");
    std::string preparer;
    for (const auto& event : run.trace.events())
        if (event.kind == trace_kind::job_preparing && event.integer("customer") == 43)
            preparer = run.trace.node_name(event.node);
    REQUIRE(!preparer.empty());
    CHECK(paused_nodes(run) == std::vector<std::string>{preparer});
}

TEST_CASE("a fault aimed at every server strikes each of them once") {
    const DesignOutcome run = unfenced_with(R"([{"pause": {"role": "servers"}, "at": "2s", "for": "1s"}])");
    CHECK(paused_nodes(run) == std::vector<std::string>{"server-1", "server-2", "server-3"});
}

TEST_CASE("a fault aimed at the primary follows a failover to the promoted replica") {
    Scenario scenario =
        load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/replica-failover.json", metric_names());
    // Crash the primary, then, once the sentinel has promoted a replica, pause "the primary".
    replace_faults(scenario,
                   R"([{"crash": "redis-primary", "at": "1s"},
                       {"pause": {"role": "primary"}, "for": "1s", "when": {"event": "store.failover"}}])",
                   "--faults");
    const ScenarioOutcome outcome = run_scenario(scenario, scenario.seed, scenario.designs.front().name);
    const DesignOutcome& run = outcome.designs.front();
    std::string promoted;
    for (const auto& event : run.trace.events())
        if (event.kind == trace_kind::store_failover) promoted = run.trace.node_name(event.node_ref("to"));
    REQUIRE(!promoted.empty());
    CHECK(promoted != "redis-primary");
    CHECK(paused_nodes(run) == std::vector<std::string>{promoted});
}

TEST_CASE("a store without a primary refuses a fault aimed at one") {
    CHECK_THAT(testing::faults_refusal_of("redlock-pause.json",
                                          R"([{"pause": {"role": "primary"}, "at": "1s", "for": "1s"}])"),
               Catch::Contains("/0/pause/role") && Catch::Contains("no primary or leader"));
}
