// runners/what_if.hpp and the page's "Predict, then reveal": every command a report
// suggests runs, on every shipped scenario, and answers what it asks.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "reports/html/html_report.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/what_if.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

TEST_CASE("gc-pause-40s asks about a shorter and a longer pause and lease, at the file's seed") {
    const auto scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    const auto questions = what_ifs(scenario, "locksim", "scenarios/gc-pause-40s.json", 1);
    REQUIRE(questions.size() == 2);
    CHECK(questions[0].question == "What if the gc pause lasted 20s or 80s instead of 40s?");
    CHECK(questions[0].command ==
          "locksim sweep scenarios/gc-pause-40s.json --start 1 --seeds 1 --vary faults/0/for=20s,40s,80s");
    CHECK(questions[1].question == "What if the lease were 15s or 1m instead of 30s?");
    CHECK(questions[1].command ==
          "locksim sweep scenarios/gc-pause-40s.json --start 1 --seeds 1 --vary lock.ttl=15s,30s,1m");
}

TEST_CASE("a shorter pause than the lease stops gc-pause-40s's double charge: the what-if answers its question") {
    const auto ran = run_locksim("sweep scenarios/gc-pause-40s.json --start 1 --seeds 1 --vary faults/0/for=20s,40s");
    REQUIRE(ran.exit_code == 0);
    // At 20 s the pause ends inside the 30 s lease; at 40 s it outlives it.
    CHECK_THAT(ran.out, Catch::Matches("(.|\n)*20s +unfenced +1 +0 +0\\.00%(.|\n)*"));
    CHECK_THAT(ran.out, Catch::Matches("(.|\n)*40s +unfenced +1 +1 +100\\.00%(.|\n)*"));
}

TEST_CASE("every what-if command of every shipped scenario runs") {
    std::size_t commands = 0;
    for (const auto& name : shipped_scenario_files()) {
        const auto scenario = load_scenario_file(scenario_path(name), metric_names());
        const std::string relative = "scenarios/" + name;
        for (const auto& what_if : what_ifs(scenario, "locksim", relative, scenario.seed)) {
            INFO(what_if.command);
            REQUIRE(what_if.command.starts_with("locksim "));
            const auto ran = run_locksim(what_if.command.substr(std::string("locksim ").size()));
            CHECK(ran.exit_code == 0);
            CHECK(ran.err.find("--vary") == std::string::npos);
            ++commands;
        }
    }
    CHECK(commands > 30);
}

TEST_CASE("the report asks the reader to predict each design's outcome before revealing it") {
    const auto scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed);
    const std::string page =
        render_html_report(outcome,
                           ReportPage{"3-4",
                                      "locksim run scenarios/gc-pause-40s.json --seed 1",
                                      "",
                                      {{"What if the lease were 15s or 1m instead of 30s?", "locksim sweep x"}}})
            .page;
    CHECK_THAT(page, Catch::Contains("<h2>Predict, then reveal</h2>"));
    CHECK_THAT(page, Catch::Contains("<details class=\"predict\"><summary>Will “unfenced” charge any customer "
                                     "twice?</summary><p>Yes: customer 42 was charged 2 times for 2026-10."));
    CHECK_THAT(page, Catch::Contains("<summary>Will “fenced” charge any customer twice?</summary><p>No customer "
                                     "charged twice. What stopped it: stale write refused"));
    CHECK_THAT(page, Catch::Contains("<li>What if the lease were 15s or 1m instead of 30s?<br><code>locksim sweep "
                                     "x</code></li>"));
}

TEST_CASE("a lease what-if offers the lengths the store accepts, its own limits included") {
    const auto consul = [](const std::string& ttl) {
        return parse_scenario(R"({"name": "consul", "description": "d", "seed": 1, "servers": ["server-1", "server-2"],
            "network": {"delay": "1ms"}, "lock": {"store": "consul", "key": "locks/renewals", "ttl": ")" +
                                  ttl + R"("}, "job": {"name": "renewals", "at": "00:00", "customers": [41],
            "period": "2026-10", "work_per_customer": "1s"}, "designs": {"only": {}}})",
                              "c.json", metric_names());
    };
    // Consul takes a session TTL from 10s to 24h: the limits themselves are offered.
    const auto at_the_floor = what_ifs(consul("20s"), "locksim", "c.json", 1);
    REQUIRE(at_the_floor.size() == 1);
    CHECK(at_the_floor[0].question == "What if the lease were 10s or 40s instead of 20s?");
    const auto below_it = what_ifs(consul("10s"), "locksim", "c.json", 1);
    REQUIRE(below_it.size() == 1);
    CHECK(below_it[0].question == "What if the lease were 20s instead of 10s?");
    CHECK(what_ifs(consul("24h"), "locksim", "c.json", 1).at(0).question ==
          "What if the lease were 12h instead of 24h?");
}
