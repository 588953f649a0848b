// Faults aimed by role: {"role": "holder"} strikes whichever server holds the lock when
// the fault fires, so a pause meant for the holder cannot silently land on a waiting one.
#include <catch2/catch.hpp>

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
    CHECK(by_role.metrics.double_charges() == 1);

    const DesignOutcome waiting = unfenced_with(R"([{"pause": "server-2", "at": "6s", "for": "40s"}])");
    CHECK(paused_nodes(waiting) == std::vector<std::string>{"server-2"});
    CHECK(waiting.metrics.double_charges() == 0);  // the silent false pass a role avoids
}

TEST_CASE("a fault aimed at the holder while nobody holds the lock strikes no one") {
    // Before the first grant (a millisecond in) there is no holder.
    const DesignOutcome early = unfenced_with(R"([{"pause": {"role": "holder"}, "at": "0s", "for": "40s"},
                                                  {"crash": {"role": "holder"}, "at": "0s"}])");
    CHECK(paused_nodes(early).empty());
    CHECK(early.metrics.double_charges() == 0);
    CHECK(early.metrics.charges == 3);
}

TEST_CASE("an unknown role is refused with the place and the roles there are") {
    Scenario scenario =
        load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json", metric_names());
    CHECK_THROWS_WITH(
        replace_faults(scenario, R"([{"pause": {"role": "leader"}, "at": "1s", "for": "1s"}])", "--faults"),
        Catch::Contains("/0/pause/role") && Catch::Contains("expected \"holder\""));
}
