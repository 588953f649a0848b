// runners/run_branches.hpp: what explore compares of two runs of a fault's ends, and what
// it rests on: the checkers of violations read only the kinds read_for_violations names.
#include <catch2/catch.hpp>

#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "checks/checkers.hpp"
#include "checks/metrics.hpp"
#include "checks/verdict.hpp"
#include "models/faults/fault.hpp"
#include "runners/run_branches.hpp"
#include "runners/scenario_runner.hpp"
#include "tests/program_support.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

// The run of `design` without the file's faults, with server-1 paused from `start` to `end`.
CheckedRun paused_run(const Design& design, Instant start, Instant end, std::uint64_t seed) {
    WorldSpec world = design.world;
    world.fault_generators.clear();
    world.faults = {placed_fault("pause", "server-1", start, end - start, ExploreDetails{"gc", {}, false, Odds{1, 1}})};
    return run_and_check(world, seed, RunOptions{.keep_trace = true});
}

std::uint32_t violations_of_run(const Design& design, const CheckedRun& run) {
    return judge_design(design, run.metrics).violations;
}

// The nodes and kinds of a run's events in the run's order.
std::vector<std::string> run_order(const Trace& trace) {
    std::vector<std::string> order;
    for (const auto& event : trace.events()) order.push_back(fmt::format("{} {}", event.node.index, event.kind.name()));
    return order;
}

}  // namespace

TEST_CASE("the checkers of violations read no kind of event but those read_for_violations names") {
    int violating = 0;
    for (const auto& file : shipped_scenario_files()) {
        const Scenario scenario = load_scenario_file(scenario_path(file), metric_names());
        const ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
        for (const auto& design : outcome.designs) {
            INFO(file << " · " << design.name);
            const auto judged = [&](const RunMetrics& metrics) {
                return judge_design(design_named(scenario, design.name), metrics).violations;
            };
            RunChecks only_those;
            for (const auto& event : design.trace.events())
                if (read_for_violations(event.kind)) only_those.read(design.trace, event);
            const RunMetrics read_so = only_those.finish(design.trace, design.summary.ended_at);
            const RunMetrics read_all = check_trace(design.trace, design.summary.ended_at);
            CHECK(judged(read_so) == judged(read_all));
            for (const Metric metric : violated_metrics(judged(read_all)))
                CHECK(read_so.value(metric) == read_all.value(metric));
            if (judged(read_all) != 0) ++violating;
        }
    }
    CHECK(violating > 10);
}

TEST_CASE(
    "two nodes' events that swap in the run's order leave the branches alone, an order that changes at one "
    "node does not") {
    const Scenario scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    const Design& fenced = design_named(scenario, "fenced");
    // Server 1, paused from 1 ns, wakes 1 ns later: its messages to the database and
    // server 2's retries for the lock swap places in the run's order (and the run-wide
    // message numbers with them), but no node sees its own events in another order.
    const Instant end = at(16_s + 440246257_ns);
    const CheckedRun earlier = paused_run(fenced, at(1_ns), end, scenario.seed);
    const CheckedRun later = paused_run(fenced, at(1_ns), end + 1_ns, scenario.seed);
    REQUIRE(run_order(earlier.trace) != run_order(later.trace));
    CHECK(same_branches(shape_of(earlier.trace), end, shape_of(later.trace), end + 1_ns));

    // With random delays, server 1's renewal on waking reaches the lock store just before,
    // or just after, the store let its lease expire: the store's own order changes.
    nlohmann::json text = nlohmann::json::parse(slurp(scenario_path("gc-pause-40s.json")));
    text["network"] = {{"delay", {{"uniform", {"1ms", "3ms"}}}}};
    const Scenario random = parse_scenario(text.dump(), "gc-pause-40s.json", metric_names());
    const Design& unfenced = design_named(random, "unfenced");
    const Instant start = at(4_s + 11325102_ns);
    const Instant edge = at(29_s + 998990891_ns);
    const CheckedRun in_time = paused_run(unfenced, start, edge - 1_ns, random.seed);
    const CheckedRun too_late = paused_run(unfenced, start, edge, random.seed);
    CHECK_FALSE(same_branches(shape_of(in_time.trace), edge - 1_ns, shape_of(too_late.trace), edge));
    CHECK(violations_of_run(unfenced, in_time) == 0);
    CHECK(violations_of_run(unfenced, too_late) != 0);
    // Nothing else changes between two ends that keep every order: the end just before is
    // the same branches as one 100 ns before it.
    const CheckedRun before = paused_run(unfenced, start, edge - 101_ns, random.seed);
    CHECK(same_branches(shape_of(before.trace), edge - 101_ns, shape_of(in_time.trace), edge - 1_ns));
}

TEST_CASE(
    "the next end where the branches may change is where an event that follows the end meets one that does "
    "not, on its node or among the events the checkers read") {
    // Node 0: a fixed event at 10 ns, one that follows the end at 12 ns, a fixed one at 40 ns.
    // Node 1: one that follows the end at 5 ns, a fixed one at 9 ns, a fixed one at 20 ns.
    // The checkers read node 0's second event and node 1's last.
    RunShape shape;
    shape.events = {1, 2, 3, 4, 5, 6};
    shape.times = {at(10_ns), at(12_ns), at(40_ns), at(5_ns), at(9_ns), at(20_ns)};
    shape.nodes = {0, 0, 0, 1, 1, 1};
    shape.checked = {1, 5};  // in the run's order: 12 ns, 20 ns
    std::vector<Follows> follows{Follows::not_at_all, Follows::the_end,    Follows::not_at_all,
                                 Follows::the_end,    Follows::not_at_all, Follows::not_at_all};
    const Instant end = at(0_ns);
    // Node 1's moving event reaches its fixed one at 9 ns when the end is 4 ns later...
    CHECK(next_meeting(shape, end, follows, end) == at(4_ns));
    // ... and, level with it there, passes it 1 ns later.
    CHECK(next_meeting(shape, end, follows, at(4_ns)) == at(5_ns));
    // Without it, node 0's moving event at 12 ns reaches the checked event of node 1 at 20 ns
    // (8 ns) before its own node's at 40 ns (28 ns).
    follows[3] = Follows::not_at_all;
    CHECK(next_meeting(shape, end, follows, end) == at(8_ns));
    // Events of two nodes that the checkers do not read never meet.
    shape.checked.clear();
    CHECK(next_meeting(shape, end, follows, end) == at(28_ns));
    // Nothing follows the end: nothing meets.
    CHECK_FALSE(next_meeting(shape, end, std::vector<Follows>(6, Follows::not_at_all), end).has_value());
}
