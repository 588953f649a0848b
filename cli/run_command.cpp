#include "cli/run_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string_view>

#include "checks/command_line.hpp"
#include "cli/output_paths.hpp"
#include "cli/report_command.hpp"
#include "cli/whole_number.hpp"
#include "cli/worker_threads.hpp"
#include "models/faults/fault.hpp"
#include "models/trace_kinds.hpp"
#include "reports/event_text.hpp"
#include "reports/fault_text.hpp"
#include "reports/mermaid.hpp"
#include "reports/perfetto.hpp"
#include "reports/result_json.hpp"
#include "reports/summary_table.hpp"
#include "reports/text_style.hpp"
#include "reports/text_timeline.hpp"
#include "reports/text_wrap.hpp"
#include "reports/trace_json.hpp"
#include "runners/lesson_rates.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/given_fault.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

std::string wrap(const std::string& text, std::size_t width) {
    std::string out;
    for (const auto& line : wrapped_lines(text, width)) out += line + "\n";
    return out;
}

// The faults that struck the first design, from its trace: fixed in the file or drawn
// from the seed, they are the same for every design unless a design changes them.
std::string fault_list(const DesignOutcome& design, const TextStyle& style) {
    std::vector<std::string> faults;
    for (const auto& event : design.trace.events()) {
        if (!shows_a_fault(event.kind)) continue;
        const auto text = describe_event(event, design.trace);
        if (text)
            faults.push_back(
                fmt::format("{} {}: {}", format_seconds(event.at), design.trace.node_name(event.node), text->text));
    }
    if (faults.empty()) return "";
    constexpr std::size_t shown = 8;
    std::string out = style.heading("Faults") + fmt::format(" ({} in this run):\n", faults.size());
    for (std::size_t i = 0; i < std::min(shown, faults.size()); ++i) out += "  " + faults[i] + "\n";
    if (faults.size() > shown)
        out += fmt::format("  … and {} more (--format trace has them all)\n", faults.size() - shown);
    return out + "\n";
}

// Faults that changed nothing, per design: a pass they leave standing proves nothing.
std::string inert_fault_lines(const ScenarioOutcome& outcome, const TextStyle& style) {
    std::string out;
    for (const auto& design : outcome.designs) {
        for (const auto& line : describe_inert_faults(design))
            out += style.fault(fmt::format("INERT {} {}: {}", outcome.name, design.name, line)) + "\n";
        if (const std::string all = describe_all_inert(design); !all.empty())
            out += style.fault(fmt::format("WARN {} {}: {}", outcome.name, design.name, all)) + "\n";
    }
    return out;
}

// `--design all` asks for every design's timeline; a design may itself be named "all".
bool every_timeline(const Scenario& scenario, const std::optional<std::string>& design) {
    if (!design || *design != "all") return false;
    return std::none_of(scenario.designs.begin(), scenario.designs.end(),
                        [](const Design& d) { return d.name == "all"; });
}

std::string design_timeline(const DesignOutcome& design, const TextStyle& style) {
    std::string out =
        style.heading(fmt::format("Timeline of \"{}\"", design.name)) +
        fmt::format(" (true time; {}; messages left out, --format trace has them)\n", compact_timeline_layout(design));
    out += render_compact_timeline(design, style);
    if (design.unfinished())
        out += style.fault(fmt::format("  … the run {} ({}) with work still pending\n",
                                       design.summary.horizon_reached ? "stopped at its horizon" : "ran out of events",
                                       format_seconds(design.summary.ended_at)));
    return out + "\n";
}

// A design that ended with work pending, in one line: what it counted is not all it would
// have done, whatever its expectations say, and what it waited for says why.
std::string unfinished_lines(const ScenarioOutcome& outcome, const TextStyle& style) {
    constexpr std::size_t named = 3;
    std::string out;
    for (const auto& design : outcome.designs) {
        if (!design.unfinished()) continue;
        std::vector<std::string> pending;
        for (std::size_t i = 0; i < std::min(named, design.metrics.pending.size()); ++i)
            pending.push_back(describe_pending_wait(design.metrics.pending[i], design.trace));
        if (design.metrics.pending.size() > named)
            pending.push_back(fmt::format("and {} more", design.metrics.pending.size() - named));
        const std::string how =
            design.summary.horizon_reached
                ? fmt::format("its horizon ({}) cut the run", format_seconds(design.summary.ended_at))
                : fmt::format("the run ran out of events at {} with a job still waiting",
                              format_seconds(design.summary.ended_at));
        out += style.fault(fmt::format("UNFINISHED {} {}: {} with work pending: {}; what it would have done after "
                                       "it is not counted",
                                       outcome.name, design.name, how, fmt::join(pending, "; "))) +
               "\n";
    }
    return out;
}

std::string render_text(const ScenarioOutcome& outcome, const RunCommandOptions& options, bool every_design,
                        const TextStyle& style) {
    std::string out = style.heading(fmt::format("{}", outcome.name)) +
                      fmt::format(" · seed {} · {} design{}\n", outcome.seed, outcome.designs.size(),
                                  outcome.designs.size() == 1 ? "" : "s");
    out += wrap(outcome.description, 88);
    if (!outcome.lesson.empty()) out += style.heading("Lesson: ") + outcome.lesson + "\n";
    out += "\n";
    out += render_summary_table(outcome, style) + "\n";
    out += fault_list(outcome.designs.front(), style);

    if (every_design) {
        for (const auto& design : outcome.designs) out += design_timeline(design, style);
    } else {
        out += design_timeline(outcome.designs.front(), style);
    }

    for (const auto& design : outcome.designs)
        for (const auto& result : design.expectations)
            if (!result.held)
                out += style.violation(
                           fmt::format("FAIL {} {}: {}", outcome.name, design.name, describe_failure(result, design))) +
                       "\n";
    out += unfinished_lines(outcome, style);
    out += inert_fault_lines(outcome, style);
    out += fmt::format("Replay: {}\n", replay_command(options.program, outcome.file, outcome.seed, options.design,
                                                      options.faults, options.given_fault));
    return out;
}

}  // namespace

int run_command(const RunCommandOptions& options) {
    auto loaded = load_scenario_or_report(options.file);
    if (!loaded) return 2;
    if (options.faults) {
        replace_faults(*loaded, *options.faults, "--faults");
    }
    const bool every_design = every_timeline(*loaded, options.design);
    const std::optional<std::string> only_design = every_design ? std::nullopt : options.design;
    if (!has_design_or_report(*loaded, only_design)) return 2;
    if (options.given_fault) {
        if (options.faults) {
            fmt::print(stderr, "--given-fault conditions the faults drawn, and --faults draws none: give one\n");
            return 2;
        }
        try {
            give_fault(*loaded, *options.given_fault, only_design);
        } catch (const GivenFaultError& error) {
            fmt::print(stderr, "{}\n", error.what());
            return 2;
        }
    }
    const Scenario& scenario = *loaded;
    if (options.report_directory)
        check_outputs({OutputTarget{"--report", *options.report_directory, true, {lesson_page_name(scenario.name)}}},
                      inputs_of(scenario));

    ScenarioOutcome outcome;
    outcome = run_scenario(scenario, options.seed.value_or(scenario.seed), only_design,
                           RunOptions{.event_limit = options.max_events});
    switch (options.format) {
        case RunFormat::json: fmt::print("{}", render_result_json(outcome)); break;
        case RunFormat::trace: fmt::print("{}", render_trace_json(outcome)); break;
        case RunFormat::mermaid: fmt::print("{}", render_mermaid(outcome)); break;
        case RunFormat::perfetto: fmt::print("{}", render_perfetto(outcome)); break;
        case RunFormat::text: {
            const TextStyle style(use_colour(options.color));
            fmt::print("{}", render_text(outcome, options, every_design, style));
            break;
        }
    }
    if (options.report_directory) {
        // A run drawn given a fault is no draw of the sweep the page would show: no rates then.
        std::optional<LessonRates> rates;
        if (!options.given_fault)
            rates = lesson_rates(scenario, options.program, usable_cpus(), options.max_events, only_design);
        const auto files = scenario_report_files(outcome, scenario, options.program,
                                                 replay_command(options.program, options.file, outcome.seed,
                                                                options.design, options.faults, options.given_fault),
                                                 {}, std::move(rates));
        write_files_atomically(*options.report_directory, files, "--report");
        // Where the report went is for the person at the terminal: on stderr, so that
        // stdout stays one clean document in the json, trace and other formats.
        fmt::print(stderr, "HTML report: {} (open it in a browser)\n",
                   (std::filesystem::path(*options.report_directory) / files.back().path).string());
    }
    return outcome.held() ? 0 : 1;
}

// `locksim run`: its options and their help on the program's command line.
Subcommand add_run_command(CLI::App& app, const std::string& program) {
    struct Line {
        RunCommandOptions options;
        std::string format = "text";
        std::string color = "auto";
    };
    const auto line = std::make_shared<Line>();
    line->options.program = program;
    CLI::App* run = app.add_subcommand("run", "Run a scenario file and print what went wrong in each design");
    run->add_option("FILE", line->options.file, "Scenario file (JSON), e.g. scenarios/gc-pause-40s.json")->required();
    add_whole_number(*run, "--seed", line->options.seed,
                     "Seed for this run instead of the file's (0 to 18446744073709551615; replays a run exactly)");
    run->add_option("--design", line->options.design,
                    "Run only the design with this name; \"all\": every design, and the text output\n"
                    "draws every design's timeline in turn (the first design's otherwise)");
    run->add_option("--faults", line->options.faults,
                    "These faults instead of the file's, as JSON written like its \"faults\" (no faults are\n"
                    "drawn): replays a placement that `locksim explore` found, e.g.\n"
                    "'[{\"pause\": \"server-1\", \"for\": \"40s\", \"when\": {\"event\": \"job.preparing\", "
                    "\"node\": \"server-1\", \"nth\": 2}}]'");
    add_whole_number(*run, "--given-fault", line->options.given_fault,
                     "Draw the run given that fault_generators/N strikes at least once, as `sweep --given-fault`\n"
                     "does: replays a seed such a sweep lists")
        ->type_name("N");
    run->add_option(
           "--format", line->format,
           "text: table and timeline (default); json: metrics and expectations; trace: every event;\n"
           "mermaid: a sequenceDiagram per design, as Markdown; perfetto: Chrome trace JSON for ui.perfetto.dev")
        ->check(CLI::IsMember({"text", "json", "trace", "mermaid", "perfetto"}));
    run->add_option("--report", line->options.report_directory,
                    "Also write the scenario's HTML report (one self-contained page) into this directory");
    add_color(*run, line->color);
    run->footer(
        "Examples: locksim run scenarios/gc-pause-40s.json --report report\n"
        "          locksim run scenarios/gc-pause-40s.json --seed 7 --format json\n"
        "          locksim run scenarios/gc-pause-40s.json --design fenced --format mermaid > figure.md");
    add_event_limit(*run, line->options.max_events);
    return Subcommand{.app = run,
                      .run =
                          [line, run] {
                              const std::string& format = line->format;
                              line->options.format = format == "json"       ? RunFormat::json
                                                     : format == "trace"    ? RunFormat::trace
                                                     : format == "mermaid"  ? RunFormat::mermaid
                                                     : format == "perfetto" ? RunFormat::perfetto
                                                                            : RunFormat::text;
                              line->options.color = color_choice(line->color);
                              return run_command(line->options);
                          },
                      .file = [line] { return std::string_view(line->options.file); }};
}

}  // namespace locksim
