// runners/what_if.hpp and the page's "Predict, then reveal": every command a report
// suggests runs, on every shipped scenario, and answers what it asks.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

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
    CHECK_THAT(ran.out, Catch::Matches("(.|\n)*20s +unfenced +1 +0 +1 +0\\.00%(.|\n)*"));
    CHECK_THAT(ran.out, Catch::Matches("(.|\n)*40s +unfenced +1 +1 +1 +100\\.00%(.|\n)*"));
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
    // Asked before anything on the page answers it: the table, the strip, the stories.
    const auto asked = page.find("<h2>Predict, then reveal</h2>");
    CHECK(asked < page.find("<h2>The designs side by side</h2>"));
    CHECK(asked < page.find("<div class=\"strip\""));
    CHECK(asked < page.find("<article"));
    // Answered with the mechanism, never by restating the question.
    CHECK_THAT(page, Catch::Contains("<details class=\"predict\"><summary>Will “unfenced” charge any customer "
                                     "twice?</summary><p>Yes: customer 42 charged a second time for 2026-10: server-1 "
                                     "sent it at 46.000s, 15.999s after its lease had ended at the store"));
    CHECK_THAT(page, Catch::Contains("<summary>Will “fenced” charge any customer twice?</summary><p>No: stale write "
                                     "refused: token 33 came after token 34 had written customer 42."));
    CHECK_THAT(page, Catch::Contains("<summary>Will “idempotent” charge any customer twice?</summary><p>No: the "
                                     "payment provider had seen key renewal-42-2026-10 at 34.795s"));
    CHECK(page.find("No customer charged twice") == std::string::npos);
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

TEST_CASE("a scenario whose faults are drawn at random leads with its rates, and no drawn run earns a green mark") {
    const auto out = fresh_directory("rate-page");
    const auto ran = run_locksim("report scenarios/random-gc-pauses.json --out '" + out.string() + "'");
    REQUIRE(ran.exit_code == 0);
    const std::string page = slurp(out / "random-gc-pauses.html");
    const auto swept = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 2000 --format json");
    REQUIRE(swept.exit_code == 0);
    const auto totals = nlohmann::json::parse(swept.out);
    CHECK_THAT(page, Catch::Contains("Seed 1: one run of many, each drawing its faults at random."));
    CHECK_THAT(page, Catch::Contains("<h2>How often: 2000 runs per design</h2>"));
    CHECK_THAT(page, Catch::Contains("seeds 1–2000 (the file's sweep block)"));
    for (const auto& design : totals["designs"]) {
        const std::string name = design["name"];
        const std::uint64_t lost = design["runs_with_violation"];
        INFO(name);
        const std::string badge =
            lost > 0 ? "<span class=\"outcome outcome-harmed\">lost in " + std::to_string(lost) + " of 2000 runs</span>"
                     // None of 2000 still leaves a rate of up to 0.19 % (the Wilson bound) unexcluded.
                     : "<span class=\"outcome outcome-safe\">nothing lost in 2000 runs</span> <span "
                       "class=\"not-ruled-out\">(a rate up to 0.19% is not ruled out)</span>";
        // In the rates' table, and again in the comparison's outcome row and the design's summary.
        CHECK(count_of(page, badge) == 3);
    }
    // The drawn run lost nothing, and says so in plain ink: no green ✓ for one run of many.
    CHECK(count_of(page, "<span class=\"outcome outcome-safe\">nothing lost</span>") == 0);
    CHECK_THAT(page, Catch::Contains("<span class=\"drawn-run\">seed 1: nothing lost</span>"));
    CHECK_THAT(page, Catch::Contains("<summary>How often will “unfenced” charge any customer twice?</summary>"));
    CHECK_THAT(page, Catch::Contains("locksim sweep scenarios/random-gc-pauses.json --seeds 2000 --start 1"));
    // The index says so too.
    const std::string index = slurp(out / "index.html");
    CHECK_THAT(index, Catch::Contains("lost in unfenced in "));
    CHECK(index.find("nothing lost</span>") == std::string::npos);

    SECTION("a file without a sweep block gets the default, said as such") {
        const auto clock = run_locksim("report scenarios/clock-chaos.json --out '" + (out / "clock").string() + "'");
        REQUIRE(clock.exit_code == 0);
        CHECK_THAT(slurp(out / "clock" / "clock-chaos.html"),
                   Catch::Contains("seeds 1–200 (a default: the file has no sweep block to say how many)"));
    }
    SECTION("run --report with faults of its own draws none at random: one plain run, no rates") {
        const auto fixed = run_locksim("run scenarios/random-gc-pauses.json --faults '[]' --report '" +
                                       (out / "fixed").string() + "'");
        REQUIRE(fixed.exit_code != 2);
        const std::string one = slurp(out / "fixed" / "random-gc-pauses.html");
        CHECK(one.find("<h2>How often") == std::string::npos);
        CHECK(one.find("<table class=\"rate-table\">") == std::string::npos);
        CHECK(one.find("one run of many") == std::string::npos);
    }
    std::filesystem::remove_all(out);
}
