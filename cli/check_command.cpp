#include "cli/check_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "checks/command_line.hpp"
#include "checks/exploration.hpp"
#include "checks/metric_words.hpp"
#include "checks/metrics.hpp"
#include "cli/atomic_file.hpp"
#include "cli/installed_files.hpp"
#include "cli/output_paths.hpp"
#include "cli/terminal.hpp"
#include "cli/whole_number.hpp"
#include "cli/worker_threads.hpp"
#include "models/faults/fault_roles.hpp"
#include "reports/explore_text.hpp"
#include "reports/fault_text.hpp"
#include "reports/junit.hpp"
#include "reports/text_style.hpp"
#include "runners/explore_runner.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/sweep_runner.hpp"
#include "runners/vacuous_sweep.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

namespace {

// What an unfinished design's jobs were waiting for when the run ended: check runs without
// the messages, so the design runs once more with them, to name the reply that never came
// ("server-1's job run (started at 0.000s); it has waited since 7.010s for billing-db's
// reply to 'UPDATE …'").
std::string what_it_waited_for(const Scenario& scenario, std::uint64_t seed, const std::string& design,
                               const CheckCommandOptions& options) {
    const ScenarioOutcome traced =
        run_scenario(scenario, seed, design, RunOptions{.event_limit = options.max_events}, FaultJudging::off);
    const DesignOutcome& run = traced.designs.front();
    constexpr std::size_t named = 3;
    std::vector<std::string> pending;
    for (std::size_t i = 0; i < std::min(named, run.metrics.pending.size()); ++i)
        pending.push_back(describe_pending_wait(run.metrics.pending[i], run.trace));
    if (run.metrics.pending.size() > named)
        pending.push_back(fmt::format("and {} more", run.metrics.pending.size() - named));
    return fmt::format("unfinished at {}: {}", format_seconds(run.summary.ended_at), fmt::join(pending, "; "));
}

// A scenario's "explore" block as test cases: one per design it sets expectations for,
// failing with the first violating placement and region and the commands that replay them.
std::vector<CheckedDesign> check_exploration(const Scenario& scenario, const CheckCommandOptions& options,
                                             unsigned threads) {
    const Exploration exploration =
        run_explore(scenario, ExploreOptions{std::nullopt, options.seed, threads, options.max_events});
    std::vector<CheckedDesign> checked;
    for (const auto& design : exploration.designs) {
        if (design.expectations.empty()) continue;
        CheckedDesign result{"explore: " + design.name, {}, ""};
        for (const auto& expectation : design.expectations)
            if (!expectation.held) result.failures.push_back(describe_failure(expectation, words_of(design)));
        if (!result.failures.empty())
            for (auto& line : first_violations(exploration, design, options.program))
                result.failures.push_back(std::move(line));
        checked.push_back(std::move(result));
    }
    return checked;
}

// A scenario's "sweep" block as test cases: one per design it sets expectations for,
// failing with the first failing seeds and the command that replays the first. Runs cut by
// their horizon with work pending fail it too, unless the block expects runs_unfinished
// itself: their counts stop short of what they would have done. So does a sweep in which
// no fault reached the lock, unless the block expects runs_fault_reached itself: its
// counts say nothing about the faults.
std::vector<CheckedDesign> check_sweep(const Scenario& scenario, const CheckCommandOptions& options, unsigned threads) {
    const SweepSpec& spec = *scenario.sweep;
    const SweepSummary summary = run_sweep(
        scenario, SeedBlock{spec.first_seed, spec.seeds}, threads, [](std::uint64_t) {},
        SweepSettings{std::nullopt, options.max_events, spec.given_fault});
    std::vector<CheckedDesign> checked;
    for (const auto& tally : summary.designs) {
        const auto expected = spec.expect.find(tally.name);
        if (expected == spec.expect.end()) continue;
        CheckedDesign result{fmt::format("sweep of {} seeds: {}", spec.seeds, tally.name), {}, ""};
        result.tested = fmt::format("a fault reached the lock in {} of {} runs", tally.runs_fault_reached, tally.runs);
        const auto value_of = [&tally](std::string_view metric) { return tally.total(metric); };
        for (const auto& expectation : evaluate(expected->second, value_of))
            if (!expectation.held) result.failures.push_back(describe_failure(expectation, summary.words));
        if (!result.failures.empty() && !tally.failing_seeds.empty())
            result.failures.push_back(
                fmt::format("first failing seeds: {}; replay: {}", fmt::join(tally.failing_seeds, ", "),
                            replay_command(options.program, scenario.file, tally.failing_seeds.front(), tally.name,
                                           std::nullopt, spec.given_fault)));
        const auto names = [&](std::string_view total) {
            return std::any_of(expected->second.begin(), expected->second.end(),
                               [&](const Expectation& e) { return e.metric == total; });
        };
        if (const std::string cut = describe_unfinished(tally, options.program, scenario.file, spec.given_fault);
            !cut.empty() && !names("runs_unfinished"))
            result.failures.push_back(cut);
        if (const std::string vacuous = describe_vacuous(tally, options.program, scenario.file, spec.first_seed,
                                                         spec.given_fault, why_no_fault_reached(scenario, tally.name));
            !vacuous.empty() && !names("runs_fault_reached"))
            result.failures.push_back("vacuous: " + vacuous);
        checked.push_back(std::move(result));
    }
    return checked;
}

}  // namespace

int check_command(const CheckCommandOptions& options) {
    const auto threads = worker_threads(options.jobs);
    if (!threads) return 2;
    const TextStyle style(use_colour(color_choice(options.color)));
    std::vector<UnusablePath> unusable_paths;
    const auto files = scenario_files(options.paths, unusable_paths);
    // Before any run: the JUnit file can be written, and is none of the files checked.
    if (options.junit) check_outputs({OutputTarget{"--junit", *options.junit}}, files);
    std::vector<CheckedScenario> results;
    for (const auto& unusable : unusable_paths)
        results.push_back(CheckedScenario{unusable.path, "", unusable.message, {}});

    for (const auto& file : files) {
        CheckedScenario checked{file, "", "", {}};
        try {
            const Scenario scenario = load_scenario_file(file, metric_names());
            // Nor any file of samples a scenario reads, known only once it is loaded.
            if (options.junit) check_outputs({OutputTarget{"--junit", *options.junit}}, inputs_of(scenario));
            checked.name = scenario.name;
            const ScenarioOutcome outcome =
                run_scenario(scenario, options.seed.value_or(scenario.seed), std::nullopt,
                             RunOptions{.trace_messages = false, .event_limit = options.max_events});
            for (const auto& design : outcome.designs) {
                CheckedDesign result{design.name, {}, efficiency_cost(design), {}};
                for (const auto& expectation : design.expectations)
                    if (!expectation.held) result.failures.push_back(describe_failure(expectation, design));
                if (design.unfinished() && !design.held())
                    result.failures.push_back(what_it_waited_for(scenario, outcome.seed, design.name, options));
                if (!result.failures.empty())
                    result.failures.push_back(
                        "replay: " + replay_command(options.program, scenario.file, outcome.seed, design.name));
                // A vacuous pass is one line naming every fault and what it struck instead,
                // whatever its kind; otherwise a line per fault that missed and changed nothing.
                if (design.passes_only_with_inert_faults()) {
                    const std::string all = fmt::format("passes only because {}. Missed: {}",
                                                        describe_all_inert(design), describe_missed_faults(design));
                    if (options.refuse_inert)
                        result.failures.push_back(all);
                    else
                        result.warnings.push_back(all + " (--refuse-inert fails it)");
                } else {
                    result.warnings = describe_inert_faults(design, true);
                }
                checked.designs.push_back(std::move(result));
            }
            if (scenario.explore)
                for (auto& result : check_exploration(scenario, options, *threads))
                    checked.designs.push_back(std::move(result));
            if (scenario.sweep)
                for (auto& result : check_sweep(scenario, options, *threads))
                    checked.designs.push_back(std::move(result));
        } catch (const ScenarioError& error) {
            checked.error = error.what();
        } catch (const ExploreError& error) {
            checked.error = fmt::format("{}: /explore: {}", file, error.what());
        } catch (const RunawayRun& runaway) {
            checked.error = fmt::format("{}: {}", file, runaway.what());
        }
        results.push_back(std::move(checked));
    }

    std::size_t passed = 0, failed = 0, unusable = 0;
    for (const auto& scenario : results) {
        if (!scenario.error.empty()) {
            ++unusable;
            // The error is the loader's one line, which starts with the file.
            fmt::print("{}\n", style.violation("ERROR " + scenario.error));
            continue;
        }
        for (const auto& design : scenario.designs) {
            for (const auto& warning : design.warnings)
                fmt::print("{}\n", style.fault(fmt::format("WARN {} {}: {}", scenario.name, design.name, warning)));
            if (design.failures.empty()) {
                ++passed;
                const std::string cost = design.cost.empty() ? "" : fmt::format(" (efficiency lock: {})", design.cost);
                const std::string tested = design.tested.empty() ? "" : fmt::format(" ({})", design.tested);
                fmt::print("{} {} {}{}{}\n", style.good("PASS"), scenario.name, design.name, cost, tested);
                continue;
            }
            ++failed;
            std::string message;
            for (const auto& failure : design.failures) message += (message.empty() ? "" : "; ") + failure;
            // What the sweep tested before what failed, so that the line still ends with its replay.
            const std::string tested = design.tested.empty() ? "" : fmt::format(" ({})", design.tested);
            fmt::print("{}\n",
                       style.violation(fmt::format("FAIL {} {}{}: {}", scenario.name, design.name, tested, message)));
        }
    }
    if (options.junit) write_file_atomically(*options.junit, render_junit(results), "--junit");
    fmt::print("{} passed, {} failed, {} unusable\n", passed, failed, unusable);
    if (unusable > 0) return 2;
    return failed > 0 ? 1 : 0;
}

// `locksim check`: its options and their help on the program's command line.
Subcommand add_check_command(CLI::App& app, const std::string& program) {
    struct Line {
        CheckCommandOptions options;
    };
    const auto line = std::make_shared<Line>();
    line->options.program = program;
    CLI::App* check = app.add_subcommand(
        "check",
        "Run every scenario under PATH (files, or directories searched for *.json) and check its expectations: for CI");
    check->add_option("PATH", line->options.paths,
                      "Scenario files or directories (" + default_scenario_paths_help() + ")");
    add_whole_number(*check, "--seed", line->options.seed, "Run every file under this seed instead of its own");
    check->add_option("--junit", line->options.junit, "Also write JUnit XML to this file (one testsuite per scenario)");
    check->add_flag("--refuse-inert", line->options.refuse_inert,
                    "Fail a design whose expectations hold only because every fault, whatever its kind, missed "
                    "the lock (a pause on a server waiting for it, a delay spike on a link that carried none of "
                    "its messages, a clock step on a node that never held it); without it, check warns");
    add_whole_number(*check, "--jobs,-j", line->options.jobs,
                     "Worker threads for files with an \"explore\" block (default: the CPUs this process may\n"
                     "use); results never depend on it");
    add_color(*check, line->options.color);
    check->footer(
        "Prints PASS or FAIL per scenario and design, then \"N passed, N failed\". A file's \"explore\" block\n"
        "adds a test per design it sets expectations for (\"explore: DESIGN\"), run as `locksim explore` runs it;\n"
        "a \"sweep\" block one per design over its seeds (\"sweep of N seeds: DESIGN\"); --seed changes neither.\n"
        "WARN: a fault missed the lock and changed nothing, or a design passes only because every fault did\n"
        "(without any it counts the same); the line names each fault and what it struck instead.\n"
        "Exit 0 when every expectation held, 1 when one failed, 2 when a file could not be used.\n"
        "Example: locksim check scenarios/ --junit locksim.xml");
    add_event_limit(*check, line->options.max_events);
    return Subcommand{.app = check, .run = [line] {
                          line->options.paths = scenario_paths_or_library(line->options.paths);
                          return check_command(line->options);
                      }};
}

}  // namespace locksim
