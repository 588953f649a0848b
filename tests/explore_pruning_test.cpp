// checks/equivalent_placements.hpp and Engine's QueuePlace: explore runs once the
// placements that are the same run, and every placement still gets the outcome that
// running it gives.
#include <catch2/catch.hpp>

#include "tests/scenario_support.hpp"
#include "tests/small_explore.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "checks/equivalent_placements.hpp"
#include "checks/exploration.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world.hpp"
#include "reports/explore_json.hpp"
#include "runners/explore_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

// --- the engine: where an event sits in the queue's order ---------------------------

// What server-1 does at 1 s, in one handling: records customer 41, does `between`, records
// customer 42.
using Between = std::function<void(Engine&, NodeId)>;

void record_41_then_42(Engine& engine, NodeId server, Between between) {
    engine.schedule_at(at(1_s), server, [&engine, server, between] {
        engine.record(server, trace_kind::job_preparing, {{"customer", std::int64_t{41}}});
        between(engine, server);
        engine.record(server, trace_kind::job_preparing, {{"customer", std::int64_t{42}}});
    });
}

// `node` records that it prepares `customer`'s invoice.
void record_customer(Engine& engine, NodeId node, std::int64_t customer) {
    engine.record(node, trace_kind::job_preparing, {{"customer", customer}});
}

// The queue places of the records of customers 41 and 42, in a run without faults.
std::vector<QueuePlace> places_of_41_and_42(const Between& between) {
    Engine engine(1);
    engine.note_queue_places();
    const NodeId server = engine.add_node("server-1");
    record_41_then_42(engine, server, between);
    engine.run(at(1_min));
    const auto places = engine.take_queue_places();
    std::vector<QueuePlace> found;
    for (const auto& event : engine.trace().events())
        if (event.kind == trace_kind::job_preparing && event.integer("customer") != 99)
            found.push_back(places[event.sequence]);
    REQUIRE(found.size() == 2);
    return found;
}

// The run's events as text, with a 5 s pause placed after `customer`'s record.
std::vector<std::string> run_pausing_after(const Between& between, std::int64_t customer) {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    record_41_then_42(engine, server, between);
    engine.on_event(std::string(trace_kind::job_preparing), server, {{"customer", customer}}, 1,
                    [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.run(at(1_min));
    std::vector<std::string> events;
    for (const auto& event : engine.trace().events())
        events.push_back(fmt::format("{} {} {}", format_seconds(event.at), event.kind,
                                     event.has("customer") ? event.integer("customer") : -1));
    return events;
}

// --- explore ---------------------------------------------------------------------------

Scenario gc_pause_40s() {
    return load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
}

// How many placements of two explorations of the same plan differ in their faults or
// their outcome (0 when they agree on every one).
std::size_t disagreements(const DesignExploration& pruned, const DesignExploration& naive) {
    REQUIRE(pruned.placements.size() == naive.placements.size());
    std::size_t differ = 0;
    for (std::size_t k = 0; k < pruned.placements.size(); ++k) {
        const auto& a = pruned.placements[k];
        const auto& b = naive.placements[k];
        bool same_faults = a.faults.size() == b.faults.size();
        for (std::size_t f = 0; same_faults && f < a.faults.size(); ++f)
            same_faults = a.faults[f].family == b.faults[f].family && a.faults[f].point == b.faults[f].point &&
                          a.faults[f].size == b.faults[f].size;
        if (!same_faults || a.violations != b.violations) {
            if (differ == 0) UNSCOPED_INFO("first disagreement: " << placement_faults(naive, b).dump());
            ++differ;
        }
    }
    return differ;
}

// The JSON of an exploration without the two counts that say how much ran.
std::string without_run_counts(const Exploration& exploration) {
    auto json = explore_json(exploration, true);
    for (auto& design : json["designs"]) {
        design.erase("placements_run");
        design.erase("placements_pruned");
    }
    return json.dump();
}

// The trace of one design's run with a placement's faults, as `locksim run --faults` runs it.
Trace trace_with(const Scenario& scenario, const DesignExploration& design, const PlacementOutcome& placement) {
    Scenario faulted = scenario;
    replace_faults(faulted, placement_faults(design, placement).dump(), "--faults");
    return run_world(design_named(faulted, design.name).world, faulted.seed).trace;
}

// Two traces event for event: time, node, clocks, kind and every field.
bool same_events(const Trace& a, const Trace& b) {
    if (a.events().size() != b.events().size()) return false;
    for (std::size_t e = 0; e < a.events().size(); ++e) {
        const TraceEvent& x = a.events()[e];
        const TraceEvent& y = b.events()[e];
        if (x.at != y.at || x.node != y.node || x.wall != y.wall || x.monotonic != y.monotonic || x.kind != y.kind ||
            x.fields().size() != y.fields().size())
            return false;
        for (auto f = x.fields().begin(), g = y.fields().begin(); f != x.fields().end(); ++f, ++g)
            if ((*f).key != (*g).key || !((*f).value == (*g).value)) return false;
    }
    return true;
}

// Runs every pruned placement and the one it shares an outcome with; the number of pairs
// whose traces differ (0 when pruning is sound for this exploration).
std::size_t pruned_runs_that_differ(const Scenario& scenario, const DesignExploration& design, std::size_t& compared) {
    const std::vector<std::size_t> same = same_run_as(design);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < same.size(); ++k) {
        if (same[k] == k) continue;
        ++compared;
        if (!same_events(trace_with(scenario, design, design.placements[k]),
                         trace_with(scenario, design, design.placements[same[k]]))) {
            if (differ == 0)
                UNSCOPED_INFO("differs: " << placement_faults(design, design.placements[k]).dump() << " and "
                                          << placement_faults(design, design.placements[same[k]]).dump());
            ++differ;
        }
    }
    return differ;
}

}  // namespace

TEST_CASE(
    "for explore, two events of one handling with nothing queued for the instant between them share a queue place") {
    const auto nothing = [](Engine&, NodeId) {};
    const auto later = [](Engine& engine, NodeId node) {
        engine.schedule_at(engine.now() + 1_s, node, [&engine, node] { record_customer(engine, node, 99); });
    };
    for (const Between& between : {Between(nothing), Between(later)}) {
        const auto places = places_of_41_and_42(between);
        CHECK(places[0].handling == places[1].handling);
        CHECK(places[0].gap == places[1].gap);
        // And a fault after either is the same run.
        CHECK(run_pausing_after(between, 41) == run_pausing_after(between, 42));
    }
}

TEST_CASE("for explore, an event queued for the same instant between two records parts their places, and it matters") {
    const auto now = [](Engine& engine, NodeId node) {
        engine.schedule_at(engine.now(), node, [&engine, node] { record_customer(engine, node, 99); });
    };
    const auto places = places_of_41_and_42(now);
    CHECK(places[0].handling == places[1].handling);
    CHECK(places[0].gap != places[1].gap);
    // Paused after 41, the event queued for 1s waits out the pause; after 42 it runs first.
    const auto after_41 = run_pausing_after(now, 41);
    const auto after_42 = run_pausing_after(now, 42);
    CHECK(std::find(after_41.begin(), after_41.end(), "6.000s job.preparing 99") != after_41.end());
    CHECK(std::find(after_42.begin(), after_42.end(), "1.000s job.preparing 99") != after_42.end());
}

TEST_CASE("for explore, events of two handlings at the same instant have different queue places") {
    Engine engine(1);
    engine.note_queue_places();
    const NodeId server = engine.add_node("server-1");
    for (const std::int64_t customer : {41, 42})
        engine.schedule_at(at(1_s), server, [&engine, server, customer] { record_customer(engine, server, customer); });
    engine.run(at(1_min));
    const auto places = engine.take_queue_places();
    REQUIRE(places.size() == 2);
    CHECK(places[0].handling != places[1].handling);
    CHECK(places[0].gap != places[1].gap);
}

TEST_CASE("pruned explore of gc-pause-40s gives every placement the outcome running it gives, in fewer runs") {
    // Its listed lengths: pruning merges placements, and a family over a range of lengths
    // has none (its start classes are searched, not pruned).
    Scenario scenario = gc_pause_40s();
    std::erase_if(scenario.explore->faults, [](const ExploreFaultFamily& family) { return family.range.has_value(); });
    REQUIRE(!scenario.explore->faults.empty());
    const Exploration pruned = run_explore(scenario, ExploreOptions{.threads = 2});
    const Exploration naive = run_explore(scenario, ExploreOptions{.threads = 2, .prune = false});
    REQUIRE(pruned.designs.size() == naive.designs.size());
    for (std::size_t d = 0; d < naive.designs.size(); ++d) {
        INFO(naive.designs[d].name);
        CHECK(disagreements(pruned.designs[d], naive.designs[d]) == 0);
        CHECK(pruned.designs[d].placements_pruned() > 0);
        CHECK(pruned.designs[d].placements_run + pruned.designs[d].placements_pruned() ==
              pruned.designs[d].placements.size());
        CHECK(naive.designs[d].placements_run == naive.designs[d].placements.size());
    }
    // Not a comparison of nothing with nothing: the unfenced design violates.
    CHECK(design_named(naive, "unfenced").violating() > 0);
    CHECK(without_run_counts(pruned) == without_run_counts(naive));
}

TEST_CASE("depth 2: pruned and naive explore agree on every pair, and equivalent pairs are pruned") {
    // The first family's fault often strikes later than the second's: pruning must follow the
    // order the faults strike in, not the order the file lists them.
    const Scenario scenario = tiny_with_explore(
        R"({ "faults": [ { "crash": "server-2", "restart_after": "1s" }, { "pause": "server-1", "for": "40s" } ], "depth": 2 })");
    const Exploration pruned = run_explore(scenario, ExploreOptions{.design = "unfenced", .threads = 2});
    const Exploration naive = run_explore(scenario, ExploreOptions{.design = "unfenced", .threads = 2, .prune = false});
    const auto& pairs = pruned.designs.front();
    CHECK(disagreements(pairs, naive.designs.front()) == 0);
    CHECK(naive.designs.front().violating() > 0);
    CHECK(pairs.placements_pruned() > 0);
    CHECK(naive.designs.front().placements_pruned() == 0);
    CHECK(without_run_counts(pruned) == without_run_counts(naive));
}

TEST_CASE("explore: a pruned placement's run is the run of the placement it shares an outcome with, event for event") {
    const Scenario flagship = gc_pause_40s();
    const Exploration one = run_explore(flagship, ExploreOptions{.design = "fenced", .threads = 2});
    std::size_t compared = 0;
    CHECK(pruned_runs_that_differ(flagship, one.designs.front(), compared) == 0);
    CHECK(compared == one.designs.front().placements_pruned());

    const Scenario pairs = tiny_with_explore(
        R"({ "faults": [ { "pause": "server-2", "for": "40s" }, { "pause": "server-1", "for": "40s" } ], "depth": 2 })");
    const Exploration two = run_explore(pairs, ExploreOptions{.design = "unfenced", .threads = 2});
    compared = 0;
    CHECK(pruned_runs_that_differ(pairs, two.designs.front(), compared) == 0);
    CHECK(compared > 0);
}
