#include "cli/explore_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

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

}  // namespace locksim
