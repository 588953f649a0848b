// libFuzzer target: `locksim run` on small scenarios. An input that loads is run, every
// design under the file's seed (runners/scenario_runner.hpp run_scenario, which
// calls run_world and the checkers of checks/), and then the renderers read the
// outcome: always the JSON result and the text timelines; when the run was small
// (`render_below_events`), also the trace JSON, the HTML report and the course index,
// Mermaid, Perfetto, the text table and JUnit.
//
// Budget. This target bounds an input twice:
//   * it skips worlds over `max_horizon` of simulated time, with more than
//     `max_servers` servers, more than `max_designs` designs or `max_customers`
//     customers;
//   * each design runs with RunOptions::event_limit = `event_budget` instead of the
//     engine's 50 million. RunawayRun, the engine's answer to a run over its budget, is
//     an accepted outcome.
// Inputs that do not load, or are too big, return -1: libFuzzer keeps them out of the
// corpus (the loader has its own target).
//
// Findings: any exception but ScenarioError (while loading) and RunawayRun (while
// running), a crash, a leak, undefined behaviour, an assertion of the project's, and
// these promises of the renderers: the JSON outputs parse as JSON, the HTML report
// carries no <script> (the page promises none; a scenario's text must not inject one),
// the text table and timelines without colour carry no control character but line
// breaks,
// the same file and seed give the same metrics and timeline (a second run of every
// input compares them), and a third run without message tracing, as `locksim check`
// and `sweep` run, gives the same metrics. Each has an id for LOCKSIM_FUZZ_KNOWN
// (fuzz_support.hpp).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/metrics.hpp"
#include "checks/run_outcome.hpp"
#include "fuzz_support.hpp"
#include "models/world/world.hpp"
#include "reports/html/course_index.hpp"
#include "reports/html/html_report.hpp"
#include "reports/junit.hpp"
#include "reports/mermaid.hpp"
#include "reports/perfetto.hpp"
#include "reports/result_json.hpp"
#include "reports/summary_table.hpp"
#include "reports/text_style.hpp"
#include "reports/text_timeline.hpp"
#include "reports/trace_json.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/engine.hpp"

namespace {

using locksim_fuzz::promise_broken;

constexpr locksim::Duration max_horizon = locksim::minutes(10);
constexpr std::size_t max_servers = 8;
constexpr std::size_t max_designs = 6;
constexpr std::size_t max_customers = 64;
// Under ASan a run handles an event in about 10 us, but rendering it everywhere takes
// about 150 us (the trace JSON and Perfetto most): runs are capped at 20,000 events a
// design, and only inputs whose designs handled at most 5,000 events in all are
// rendered. The fuzzer then keeps an input well under a second.
constexpr std::uint64_t event_budget = 20'000;        // per design run
constexpr std::uint64_t render_below_events = 5'000;  // all designs of an input together

// LOCKSIM_FUZZ_VERBOSE=1: one line per input on stderr, with its events and timings.
const bool verbose = std::getenv("LOCKSIM_FUZZ_VERBOSE") != nullptr;

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

bool small_enough(const locksim::Scenario& scenario) {
    if (scenario.designs.size() > max_designs) return false;
    return std::all_of(scenario.designs.begin(), scenario.designs.end(), [](const locksim::Design& design) {
        const auto& world = design.world;
        return world.horizon <= max_horizon && world.servers.size() <= max_servers &&
               world.job.customers.size() <= max_customers;
    });
}

// The cheap part of what `locksim run` prints: the JSON result (metrics and
// expectations) and each design's text timeline; what the determinism check compares.
constexpr std::string_view result_end = "\n\x01end of result\x01\n";  // no renderer writes \x01

std::string render_cheap(const locksim::ScenarioOutcome& outcome) {
    std::string all = locksim::render_result_json(outcome) + std::string(result_end);
    for (const auto& design : outcome.designs)
        all += locksim::render_compact_timeline(design, locksim::TextStyle(false));
    return all;
}

// Everything a person or a tool could be shown of this outcome, concatenated.
std::string render_everything(const locksim::ScenarioOutcome& outcome, const locksim::Scenario& scenario) {
    std::string all;
    auto lap = std::chrono::steady_clock::now();
    const auto mark = [&](const char* what, std::size_t bytes) {
        if (!verbose) return;
        std::fprintf(stderr, "locksim-fuzz:   %-22s %.3fs %zu bytes\n", what, seconds_since(lap), bytes);
        lap = std::chrono::steady_clock::now();
    };
    const std::string result = locksim::render_result_json(outcome);
    mark("render_result_json", result.size());
    const std::string trace = locksim::render_trace_json(outcome);
    mark("render_trace_json", trace.size());
    const std::string perfetto = locksim::render_perfetto(outcome);
    mark("render_perfetto", perfetto.size());
    for (const auto& [name, text] : {std::pair{"render_result_json", &result}, std::pair{"render_trace_json", &trace},
                                     std::pair{"render_perfetto", &perfetto}}) {
        if (!nlohmann::json::accept(*text))
            promise_broken("invalid-json", name, "produced text that is not valid JSON");
    }
    mark("json::accept x3", 0);
    const locksim::ReportPage page{scenario.section, "locksim run fuzz.json --seed " + std::to_string(outcome.seed),
                                   "index.html"};
    const locksim::HtmlReport report = locksim::render_html_report(outcome, page);
    mark("render_html_report", report.page.size());
    std::string html = report.page;
    for (const auto& file : report.step_pages) html += file.html;
    if (html.find("<script") != std::string::npos || html.find("<SCRIPT") != std::string::npos)
        promise_broken("html-script", "render_html_report",
                       "a page contains a <script> element; a scenario's text reached it unescaped");
    const std::string index = locksim::render_course_index(
        {locksim::CourseEntry{scenario.section, outcome.name, outcome.lesson, outcome.name + ".html", outcome.held(),
                              outcome.violated_designs()}});
    if (index.find("<script") != std::string::npos)
        promise_broken("html-script", "render_course_index", "the index contains a <script> element");
    const std::string mermaid = locksim::render_mermaid(outcome);
    mark("render_mermaid", mermaid.size());

    std::vector<locksim::CheckedDesign> checked;
    for (const auto& design : outcome.designs) {
        std::vector<std::string> failures;
        for (const auto& expectation : design.expectations)
            if (!expectation.held) failures.push_back(locksim::describe_failure(expectation));
        checked.push_back(locksim::CheckedDesign{design.name, failures, locksim::efficiency_cost(design)});
    }
    const std::string junit =
        locksim::render_junit({locksim::CheckedScenario{outcome.file, outcome.name, "", checked}});

    mark("render_junit", junit.size());
    all += result + trace + perfetto + html + index + mermaid + junit;
    for (const bool colour : {false, true}) {
        const locksim::TextStyle style(colour);
        std::string text = locksim::render_summary_table(outcome, style);
        for (const auto& design : outcome.designs) text += locksim::render_compact_timeline(design, style);
        // Without colour, terminal text is printable lines: no escape from a scenario.
        if (!colour && locksim_fuzz::control_character(text, "\n") != std::string::npos)
            promise_broken("control-in-text-output", "render_summary_table/render_compact_timeline",
                           "the text output (no colour) has a control character other than a line break");
        all += text;
    }
    mark("table and timelines", 0);
    return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    locksim::Scenario scenario;
    try {
        scenario = locksim::parse_scenario(text, "fuzz.json", locksim::metric_names());
    } catch (const locksim::ScenarioError&) {
        return -1;  // not a scenario: keep it out of the corpus
    } catch (const std::exception& error) {
        locksim_fuzz::unexpected_exception("parse_scenario", error);
    } catch (...) {
        locksim_fuzz::unexpected_non_std_exception("parse_scenario");
    }
    if (!small_enough(scenario)) return -1;

    const locksim::RunOptions options{.trace_messages = true, .event_limit = event_budget};
    std::uint64_t events_this_input = 0;
    std::string first;
    std::string first_cheap;
    const auto started = std::chrono::steady_clock::now();
    double run_seconds = 0;
    try {
        const locksim::ScenarioOutcome outcome = locksim::run_scenario(scenario, scenario.seed, std::nullopt, options);
        run_seconds = seconds_since(started);
        if (outcome.designs.size() != scenario.designs.size())
            promise_broken("design-count", "run_scenario",
                           "an outcome with another number of designs than the scenario");
        for (const auto& design : outcome.designs) {
            if (design.summary.events_handled > event_budget)
                promise_broken("event-limit", "run_scenario", "a run handled more events than its event_limit");
            events_this_input += design.summary.events_handled;
        }
        first_cheap = render_cheap(outcome);
        if (events_this_input <= render_below_events) first = render_everything(outcome, scenario);
    } catch (const locksim::RunawayRun&) {
        if (verbose)
            std::fprintf(stderr, "locksim-fuzz: %s: RunawayRun after %.3fs\n", scenario.name.c_str(),
                         seconds_since(started));
        return 0;  // over the event budget: the engine said so, as it should
    } catch (const std::exception& error) {
        locksim_fuzz::unexpected_exception("run_scenario or a renderer", error);
    } catch (...) {
        locksim_fuzz::unexpected_non_std_exception("run_scenario or a renderer");
    }

    if (verbose)
        std::fprintf(stderr,
                     "locksim-fuzz: %s: %zu designs, %llu events, run %.3fs, run+render %.3fs, %zu bytes rendered\n",
                     scenario.name.c_str(), scenario.designs.size(), static_cast<unsigned long long>(events_this_input),
                     run_seconds, seconds_since(started), first.size());
    // Determinism: the same file and seed give the same metrics and timelines.
    try {
        const locksim::ScenarioOutcome again = locksim::run_scenario(scenario, scenario.seed, std::nullopt, options);
        if (render_cheap(again) != first_cheap)
            promise_broken("nondeterministic", "run_scenario",
                           "a second run of the same scenario and seed gave other metrics or another timeline");
    } catch (const locksim::RunawayRun&) {
        promise_broken("nondeterministic", "run_scenario",
                       "a second run of the same scenario and seed went over the event budget; the first did not");
    } catch (const std::exception& error) {
        locksim_fuzz::unexpected_exception("run_scenario (second run)", error);
    }
    // `locksim check` and `sweep` run without tracing messages; the checkers read no
    // message, so the metrics and expectations must be those `locksim run` shows.
    try {
        const locksim::ScenarioOutcome quiet =
            locksim::run_scenario(scenario, scenario.seed, std::nullopt,
                                  locksim::RunOptions{.trace_messages = false, .event_limit = event_budget});
        if (locksim::render_result_json(quiet) != first_cheap.substr(0, first_cheap.find(result_end)))
            promise_broken("messages-change-metrics", "run_scenario",
                           "a run without message tracing (check, sweep) gave other metrics than with it (run)");
    } catch (const locksim::RunawayRun&) {
        promise_broken("messages-change-metrics", "run_scenario",
                       "a run without message tracing went over the event budget; with it, it did not");
    } catch (const std::exception& error) {
        locksim_fuzz::unexpected_exception("run_scenario (without message tracing)", error);
    }
    return 0;
}
