// Lost work is a violation: an idempotency key that leaves out the period makes a
// recurring job's later runs replay the first run's charges. `run` and `check` count it
// and fail, and no report draws those replays as a protection; the key with the period
// charges every run and passes.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "reports/html/html_report.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// A job that runs every minute, three times, charging five customers under a lock, with
// the given key and no fault and no expectation: the correctness lock's implied ones only.
std::string every_minute(const std::string& key) {
    return R"({
      "name": "every-minute", "description": "A recurring job with an idempotency key.", "seed": 1, "horizon": "5m",
      "servers": ["server-1", "server-2"],
      "network": {"delay": "1ms"},
      "lock": {"store": "redis", "key": "lock:batch", "ttl": "30s", "retry": {"min": "1s", "max": "2s"}},
      "job": {"name": "batch", "at": "00:00", "every": "1m", "runs": 3, "customers": [41, 42, 43, 44, 45],
              "period": "2026-10", "work_per_customer": "1s"},
      "idempotency_key": ")" +
           key + R"(",
      "designs": {"only": {}}
    })";
}

ProgramRun run_every_minute(const std::string& text, const std::string& arguments) {
    return run_locksim(arguments + " " + write_temp("every-minute.json", text));
}

// The lines of the text timeline that tell a replay at the provider.
std::vector<std::string> timeline_replays(const std::string& out) {
    std::vector<std::string> lines;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);)
        if (line.find("seen before: returns") != std::string::npos) lines.push_back(line);
    return lines;
}

std::size_t occurrences_of(const std::string& text, const std::string& part) {
    std::size_t count = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++count;
    return count;
}

}  // namespace

TEST_CASE("a recurring job whose key leaves out the period charges once in three runs, and run fails naming it") {
    const auto json = run_every_minute(every_minute("batch-{customer}"), "run --format json");
    CHECK(json.exit_code == 1);
    const auto design = nlohmann::json::parse(json.out).at("designs").at(0);
    CHECK(design.at("metrics").at("charges") == 5);
    CHECK(design.at("metrics").at("double_charges") == 0);
    CHECK(design.at("metrics").at("suppressed_effects") == 10);
    bool implied = false;
    for (const auto& e : design.at("expectations"))
        if (e.at("metric") == "suppressed_effects")
            implied = e.at("implied") == true && e.at("expected") == 0 && e.at("held") == false;
    CHECK(implied);

    const auto text = run_every_minute(every_minute("batch-{customer}"), "run");
    CHECK(text.exit_code == 1);
    CHECK_THAT(text.out, Catch::Contains("suppressed_effects expected 0 (a correctness lock), got 10"));

    const auto checked = run_every_minute(every_minute("batch-{customer}"), "check");
    CHECK(checked.exit_code == 1);
    CHECK_THAT(checked.out,
               Catch::Contains("FAIL every-minute only: suppressed_effects expected 0 (a correctness lock), got 10"));
}

TEST_CASE("the same job with the period in its key charges every run and passes") {
    const auto json = run_every_minute(every_minute("batch-{customer}-{period}"), "run --format json");
    CHECK(json.exit_code == 0);
    const auto metrics = nlohmann::json::parse(json.out).at("designs").at(0).at("metrics");
    CHECK(metrics.at("charges") == 15);
    CHECK(metrics.at("suppressed_effects") == 0);
    CHECK(run_every_minute(every_minute("batch-{customer}-{period}"), "check").exit_code == 0);
}

TEST_CASE("the text timeline marks a replay of another run's charge with a cross, never a tick") {
    const auto text = run_every_minute(every_minute("batch-{customer}"), "run");
    const auto lines = timeline_replays(text.out);
    REQUIRE(lines.size() == 10);
    for (const auto& line : lines) {
        INFO(line);
        CHECK(line.find("✓") == std::string::npos);
        CHECK(line.find("✗") != std::string::npos);
        CHECK(line.find(", made for 2026-10#1: customer 4") != std::string::npos);
        CHECK(line.find("does not tell them apart") != std::string::npos);
    }
}

TEST_CASE(
    "the shipped key-without-period design draws its replays as violations, and the true replay as a "
    "protection") {
    const Scenario scenario = load_scenario_file(scenario_path("idempotency-key-period.json"), metric_names());
    const ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    const auto page = render_html_report(outcome, ReportPage{scenario.section, "locksim run", "index.html"}).page;
    const auto article = [&](const std::string& design) {
        const auto from = page.find("data-design=\"" + design + "\">");
        REQUIRE(from != std::string::npos);
        return page.substr(from, page.find("</article>", from) - from);
    };

    const std::string without = article("key-without-period");
    // What went wrong lists every suppressed charge; nothing of it is a protection.
    const auto list = without.find("<ul class=\"violations\">");
    REQUIRE(list != std::string::npos);
    const std::string violations = without.substr(list, without.find("</ul>", list) - list);
    CHECK(occurrences_of(violations, "does not tell them apart") == 10);
    CHECK(without.find("<ul class=\"protections\">") == std::string::npos);
    CHECK(occurrences_of(without, "<g class=\"caption tone-protection\">") == 0);

    // The key with the period replays the paused server's repeat of the same minute: a ✓.
    const std::string with = article("key-with-period");
    CHECK(with.find("<ul class=\"violations\">") == std::string::npos);
    const auto protections = with.find("<ul class=\"protections\">");
    REQUIRE(protections != std::string::npos);
    CHECK(with.find("had seen key batch-", protections) != std::string::npos);
}
