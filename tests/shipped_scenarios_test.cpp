// The shipped scenarios tell the course's stories; these tests pin the counted outcomes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "checks/metrics.hpp"
#include "reports/result_json.hpp"
#include "reports/trace_json.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

TEST_CASE("gc-pause-40s: unfenced charges customer 42 twice, fenced rejects the late write, idempotent charges once") {
    const auto scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed);

    const auto& unfenced = design_named(outcome, "unfenced").metrics;
    CHECK(unfenced.value(Metric::double_charges) == 1);
    REQUIRE(unfenced.double_charged.size() == 1);
    CHECK(unfenced.double_charged[0].customer == 42);
    CHECK(unfenced.value(Metric::stale_writes_rejected) == 0);

    const auto& fenced = design_named(outcome, "fenced").metrics;
    CHECK(fenced.value(Metric::double_charges) == 0);
    CHECK(fenced.value(Metric::stale_writes_rejected) == 1);
    CHECK(fenced.value(Metric::stale_writes_accepted) == 0);

    const auto& idempotent = design_named(outcome, "idempotent").metrics;
    CHECK(idempotent.value(Metric::double_charges) == 0);
    CHECK(idempotent.value(Metric::charges) == 3);

    // Two servers believed they held the lock at once in every design: the lease is a belief.
    for (const auto& d : outcome.designs) CHECK_FALSE(d.metrics.overlaps.empty());
    CHECK(outcome.held());
}

TEST_CASE("gc-pause-40s: the fenced design hands out tokens 33 and 34") {
    const auto scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed, "fenced");
    std::vector<std::int64_t> granted;
    for (const auto& event : outcome.designs.at(0).trace.events())
        if (event.kind == "lock.granted") granted.push_back(event.integer("token"));
    REQUIRE(granted.size() >= 2);
    CHECK(granted[0] == 33);
    CHECK(granted[1] == 34);
}

TEST_CASE("gc-pause-40s with a pause the lease outlives: no design charges twice") {
    auto document = nlohmann::ordered_json::parse(slurp(scenario_path("gc-pause-40s.json")));
    document["faults"][0]["for"] = "10s";
    for (auto& [name, d] : document["designs"].items()) d.erase("expect");
    const auto scenario = parse_scenario(document.dump(), "short-pause.json", metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed);
    REQUIRE(outcome.designs.size() == 3);
    for (const auto& d : outcome.designs) {
        INFO("design " << d.name);
        CHECK(d.metrics.value(Metric::double_charges) == 0);
        CHECK(d.metrics.overlaps.empty());
        CHECK(d.metrics.value(Metric::charges) == 3);
    }
}

TEST_CASE("plain-delete: a plain DEL removes the next holder's lock, compare-and-delete leaves it alone") {
    const auto scenario = load_scenario_file(scenario_path("plain-delete.json"), metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed);
    CHECK(design_named(outcome, "plain-delete").metrics.value(Metric::foreign_releases) == 1);
    CHECK(design_named(outcome, "compare-and-delete").metrics.value(Metric::foreign_releases) == 0);
    CHECK(outcome.held());
}

TEST_CASE("the same file and seed give identical JSON and trace, run after run") {
    const auto scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    const auto first = run_scenario(scenario, scenario.seed);
    const auto second = run_scenario(scenario, scenario.seed);
    CHECK(render_result_json(first) == render_result_json(second));
    CHECK(render_trace_json(first) == render_trace_json(second));
}

TEST_CASE("another seed draws other retry delays but keeps the story") {
    const auto scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    const auto seed_1 = run_scenario(scenario, 1);
    const auto seed_2 = run_scenario(scenario, 2);
    CHECK(render_trace_json(seed_1) != render_trace_json(seed_2));
    CHECK(design_named(seed_2, "unfenced").metrics.value(Metric::double_charges) == 1);
    CHECK(design_named(seed_2, "fenced").metrics.value(Metric::double_charges) == 0);
}

TEST_CASE("every shipped scenario meets every expectation its file states") {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios"))
        if (is_scenario_file(entry.path())) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 16);
    for (const auto& file : files) {
        const auto scenario = load_scenario_file(file.string(), metric_names());
        const auto outcome = run_scenario(scenario, scenario.seed);
        for (const auto& design : outcome.designs) {
            CHECK_FALSE(design.expectations.empty());
            for (const auto& result : design.expectations) {
                INFO(scenario.name << " " << design.name << ": " << describe_failure(result));
                CHECK(result.held);
            }
        }
    }
}

TEST_CASE("the stores compared: which stores survive a failover and which give tokens") {
    const auto scenario = load_scenario_file(scenario_path("stores-compared.json"), metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed);
    for (const char* store : {"redis", "redis-replicated"}) {
        INFO(store);
        CHECK_FALSE(design_named(outcome, std::string(store) + "/failover").metrics.overlaps.empty());
        CHECK(design_named(outcome, store).metrics.value(Metric::token_grants) == 0);
    }
    CHECK(design_named(outcome, "redlock/failover").metrics.overlaps.empty());
    CHECK_FALSE(design_named(outcome, "redlock/majority-restart").metrics.overlaps.empty());
    for (const char* store : {"zookeeper", "etcd", "lease-row"}) {
        INFO(store);
        CHECK(design_named(outcome, std::string(store) + "/failover").metrics.overlaps.empty());
        CHECK(design_named(outcome, store).metrics.value(Metric::token_grants) > 0);
        CHECK(design_named(outcome, store).metrics.value(Metric::double_charges) == 1);
        CHECK(design_named(outcome, std::string(store) + "+fencing").metrics.value(Metric::double_charges) == 0);
    }
}

TEST_CASE("every shipped scenario names the chapter it tells and its one-line lesson") {
    for (const auto& entry : std::filesystem::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios")) {
        if (!is_scenario_file(entry.path())) continue;
        const auto scenario = load_scenario_file(entry.path().string(), metric_names());
        INFO(entry.path().filename().string());
        CHECK_FALSE(scenario.section.empty());
        CHECK_FALSE(scenario.lesson.empty());
        CHECK(scenario.lesson.size() <= 120);
    }
}
