#include "cli/explore_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/atomic_file.hpp"
#include "cli/terminal.hpp"
#include "cli/worker_threads.hpp"
#include "reports/explore_json.hpp"
#include "reports/explore_text.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/vulnerability_map.hpp"
#include "runners/explore_runner.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {
namespace {

// Each region's example fault run as its replay command runs it (`run --faults`), for the
// map to tell why the region breaks the design.
RegionRuns region_examples(const Scenario& scenario, const Exploration& exploration, std::uint64_t event_limit) {
    RegionRuns runs;
    for (const auto& design : exploration.designs) {
        auto& examples = runs.emplace_back();
        for (const auto& region : design.regions) {
            Scenario replayed = scenario;
            replace_faults(replayed, nlohmann::ordered_json::array({region_fault(design, region)}).dump(), "explore");
            auto outcome = run_scenario(replayed, exploration.seed, design.name, RunOptions{.event_limit = event_limit},
                                        FaultJudging::off);
            examples.push_back(std::move(outcome.designs.front()));
        }
    }
    return runs;
}

}  // namespace

int explore_command(const ExploreCommandOptions& options) {
    const auto loaded = load_scenario_or_report(options.file);
    if (!loaded) return 2;
    const Scenario& scenario = *loaded;
    if (!scenario.explore) {
        fmt::print(
            stderr,
            "{}: has no \"explore\" block; add one naming the faults to try, such as\n"
            "  \"explore\": {{ \"faults\": [ {{ \"pause\": \"servers\", \"for\": [\"10s\", \"ttl\", \"ttl+1ms\", "
            "\"2m\"] }} ] }}\n",
            options.file);
        return 2;
    }
    if (!has_design_or_report(scenario, options.design)) return 2;
    const auto threads = worker_threads(options.jobs);
    if (!threads) return 2;

    Exploration exploration;
    {
        ProgressBar bar(0, "placements");
        exploration = run_explore(
            scenario, ExploreOptions{options.design, options.seed, *threads, options.max_events, options.prune,
                                     [&bar](std::uint64_t done, std::uint64_t total) { bar.update(done, total); }});
    }
    if (options.format == "json")
        fmt::print("{}\n", explore_json(exploration, options.placements).dump(2));
    else
        fmt::print("{}", render_explore_text(exploration, options.program,
                                             TextStyle(use_colour(color_choice(options.color)))));
    if (options.report_directory) {
        // DIR/<scenario>-explore.html, whole or not at all; where it went is for the person
        // at the terminal, on stderr, so that stdout stays one clean document.
        if (!make_directory(*options.report_directory)) return 2;
        const auto path = std::filesystem::path(*options.report_directory) / (slug(exploration.name) + "-explore.html");
        write_file_atomically(
            path.string(), render_explore_page(exploration, region_examples(scenario, exploration, options.max_events)),
            "--report");
        fmt::print(stderr, "Vulnerability map: {} (open it in a browser)\n", path.string());
    }
    return exploration.held() ? 0 : 1;
}

// `locksim explore`: its options and their help on the program's command line.
Subcommand add_explore_command(CLI::App& app, const std::string& program) {
    struct Line {
        ExploreCommandOptions options;
        std::string seed;
        bool no_prune = false;
    };
    const auto line = std::make_shared<Line>();
    line->options.program = program;
    CLI::App* explore = app.add_subcommand(
        "explore",
        "Try every fault of the file's \"explore\" block at every point where it can strike, per design,\n"
        "and report the windows in which one breaks the lock's promise, each with its replay command");
    explore->add_option("FILE", line->options.file, "Scenario file (JSON) with an \"explore\" block")->required();
    explore->add_option("--design", line->options.design, "Explore only the design with this name");
    explore->add_option("--seed", line->seed, "Seed for every run instead of the file's");
    explore->add_option("--jobs,-j", line->options.jobs,
                        "Worker threads (default: the CPUs this process may use); results never depend on it");
    explore->add_option("--format", line->options.format, "text (default) or json")
        ->check(CLI::IsMember({"text", "json"}));
    explore->add_flag("--placements", line->options.placements, "With --format json: list every placement tried");
    explore->add_flag("--no-prune", line->no_prune,
                      "Run every placement, also those that strike the same node at the same place in the\n"
                      "run's queue as one already run (by default they share its outcome); the results are the\n"
                      "same, only slower: for measuring and checking the pruning");
    explore->add_option("--report", line->options.report_directory,
                        "Also write the vulnerability map (one self-contained HTML page, a cell per run) into\n"
                        "this directory, as <scenario>-explore.html");
    add_color(*explore, line->options.color);
    explore->footer(
        "A strike point is a moment right after one of a target node's events in the run without the\n"
        "file's faults; a placement is one fault at one strike point (two, with \"depth\": 2). Placements\n"
        "that strike the same node at the same place in the run's queue are the same run: one runs, the\n"
        "others share its outcome and are counted as pruned (--no-prune runs them all).\n"
        "A fault with an end (pause, crash, partition) given a range of lengths, {\"from\": \"1ms\",\n"
        "\"to\": \"2m\"}, is explored exactly, every start against every end: the output lists the\n"
        "regions of (start, end) in which it violates, and no fault outside them does (docs/explore.md).\n"
        "Exit 0 when the block's \"expect\" held, 1 when one failed, 2 for unusable input.\n"
        "Example: locksim explore scenarios/gc-pause-40s.json\n"
        "         locksim explore scenarios/gc-pause-40s.json --design fenced --format json\n"
        "         locksim explore scenarios/gc-pause-40s.json --report report");
    add_event_limit(*explore, line->options.max_events);
    return Subcommand{.app = explore,
                      .run =
                          [line, explore] {
                              if (!read_seed(*explore, line->seed, line->options.seed)) return 2;
                              line->options.prune = !line->no_prune;
                              return explore_command(line->options);
                          },
                      .file = [line] { return std::string_view(line->options.file); }};
}

}  // namespace locksim
