#include "cli/explore_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "checks/explore_shard.hpp"
#include "checks/sweep_merge.hpp"
#include "cli/atomic_file.hpp"
#include "cli/build_info.hpp"
#include "cli/output_paths.hpp"
#include "cli/report_command.hpp"
#include "cli/shard_choice.hpp"
#include "cli/sweep_command.hpp"
#include "cli/terminal.hpp"
#include "cli/whole_number.hpp"
#include "cli/worker_threads.hpp"
#include "reports/explore_json.hpp"
#include "reports/explore_text.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/vulnerability_map.hpp"
#include "runners/explore_runner.hpp"
#include "runners/fault_regions.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/shard_verify.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {
namespace {

// Each region's example fault and each window's first violating placement run as its
// replay command runs it (`run --faults`), for the map to tell why it breaks the design.
MapExamples map_examples(const Scenario& scenario, const Exploration& exploration, std::uint64_t event_limit) {
    const auto run_with = [&](const DesignExploration& design, const nlohmann::ordered_json& fault) {
        Scenario replayed = scenario;
        replace_faults(replayed, nlohmann::ordered_json::array({fault}).dump(), "explore");
        auto outcome = run_scenario(replayed, exploration.seed, design.name, RunOptions{.event_limit = event_limit},
                                    FaultJudging::off);
        return std::move(outcome.designs.front());
    };
    MapExamples runs;
    for (const auto& design : exploration.designs) {
        auto& regions = runs.regions.emplace_back();
        for (const auto& region : design.regions) regions.push_back(run_with(design, region_fault(design, region)));
        auto& windows = runs.windows.emplace_back();
        for (const auto& window : design.windows)
            windows.push_back(
                run_with(design, fault_object(design, FaultChoice{window.family, window.first, window.first_size})));
    }
    return runs;
}

}  // namespace

std::string vulnerability_map_page(const Scenario& scenario, std::uint64_t seed, unsigned threads,
                                   std::uint64_t event_limit) {
    const Exploration exploration =
        run_explore(scenario, ExploreOptions{std::nullopt, seed, threads, event_limit, true});
    return render_explore_page(exploration, map_examples(scenario, exploration, event_limit));
}

namespace {

// The exploration as `explore` prints it, in either format.
std::string rendered_exploration(const Exploration& exploration, const std::string& format, bool placements,
                                 const std::string& program, const std::string& color) {
    if (format == "json") return fmt::format("{}\n", explore_json(exploration, placements).dump(2));
    return render_explore_text(exploration, program, TextStyle(use_colour(color_choice(color))));
}

// The placements and start classes about to run, on stderr (stdout stays one document):
// on a terminal, and in a shard's log, where the count tells how long the task will take.
void say_planned(std::uint64_t placements, std::uint64_t start_classes, const ShardChoice& shard) {
    const std::string which = shard.count > 1 ? fmt::format(" (shard {}/{})", shard.index, shard.count) : "";
    fmt::print(stderr,
               "locksim: exploring{}: {} placement runs, then {} start classes (a held run each, then a run "
               "per end tried; at most {} for a family)\n",
               which, grouped(placements), grouped(start_classes), grouped(max_region_runs));
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
    ShardChoice shard;
    if (options.shard) {
        const std::optional<ShardChoice> chosen = chosen_shard(*options.shard);
        if (!chosen) return 2;
        shard = *chosen;
        if (options.report_directory || options.placements) {
            fmt::print(stderr,
                       "--report and --placements show a whole exploration, not one shard of it: merge the "
                       "shards first (locksim merge), or run it unsharded\n");
            return 2;
        }
    }
    const auto threads = worker_threads(options.jobs);
    if (!threads) return 2;
    std::vector<OutputTarget> outputs;
    if (options.output) outputs.push_back(OutputTarget{"--output", *options.output});
    if (options.report_directory)
        outputs.push_back(
            OutputTarget{"--report", *options.report_directory, true, {explore_page_name(scenario.name)}});
    check_outputs(outputs, inputs_of(scenario));

    ExploreOptions explore{options.design, options.seed, *threads, options.max_events, options.prune};
    explore.shard = shard.index;
    explore.shards = shard.count;
    const bool say = options.shard || show_progress();
    explore.planned = [&](std::uint64_t placements, std::uint64_t start_classes) {
        if (say) say_planned(placements, start_classes, shard);
    };
    if (options.shard) {
        ExploreUnits units;
        {
            ProgressBar bar(0, "placements");
            explore.progress = [&bar](std::uint64_t done, std::uint64_t total) { bar.update(done, total); };
            units = run_explore_shard(scenario, explore);
        }
        const ExploreSettings settings{options.design, units.exploration.seed, options.max_events, options.prune};
        ExploreShard part{scenario.name,
                          scenario.file,
                          shard.index,
                          shard.count,
                          SweepProvenance{scenario.content_sha256, locksim_version, build_commit,
                                          explore_command_line(scenario.file, settings, shard.index, shard.count),
                                          scenario.data_file_sha256},
                          settings,
                          {},
                          units.total,
                          units.first,
                          std::move(units.outcomes)};
        for (const auto& design : units.exploration.designs) part.designs.push_back(design.name);
        // A shard is always JSON: it is for `merge`.
        deliver(explore_shard_json(part).dump(2) + "\n", options.output);
        return 0;
    }

    Exploration exploration;
    {
        ProgressBar bar(0, "placements");
        explore.progress = [&bar](std::uint64_t done, std::uint64_t total) { bar.update(done, total); };
        exploration = run_explore(scenario, explore);
    }
    deliver(rendered_exploration(exploration, options.format, options.placements, options.program,
                                 options.output ? "never" : options.color),
            options.output);
    if (options.report_directory) {
        // DIR/<scenario>-explore.html, whole or not at all; where it went is for the person
        // at the terminal, on stderr, so that stdout stays one clean document.
        const std::string page = explore_page_name(exploration.name);
        write_files_atomically(*options.report_directory,
                               {OutputFile{page, render_explore_page(exploration, map_examples(scenario, exploration,
                                                                                               options.max_events))}},
                               "--report");
        fmt::print(stderr, "Vulnerability map: {} (open it in a browser)\n",
                   (std::filesystem::path(*options.report_directory) / page).string());
    }
    return exploration.held() ? 0 : 1;
}

int merge_exploration(const ShardFiles& files, const MergeCommandOptions& options) {
    if (options.partial)
        throw SweepError(
            "merge --partial: an exploration's windows and regions need every shard; merge once all are "
            "present (locksim merge --missing lists the others)");
    require_every_shard(files);
    std::vector<const ExploreShard*> by_index(files.complete.front().shards);
    for (const auto& part : files.explorations) by_index[part->shard - 1] = &*part;
    const ExploreShard& first = *by_index.front();
    // The merge plans the exploration again, so it must plan it as the shards did.
    if (first.provenance.locksim_version != locksim_version || first.provenance.commit != build_commit)
        throw SweepError(fmt::format(
            "merge: the shards were written by locksim {} (commit {}), this is locksim {} (commit {}): merge "
            "them with the locksim that explored",
            first.provenance.locksim_version, first.provenance.commit, locksim_version, build_commit));
    const auto loaded = load_scenario_or_report(first.file);
    if (!loaded) return 2;
    // The shards were checked against the output before they were read; the file they
    // explored is an input too.
    if (options.output) check_outputs({OutputTarget{"--output", *options.output}}, inputs_of(*loaded));
    if (loaded->content_sha256 != first.provenance.scenario_sha256 || !loaded->explore)
        throw SweepError(fmt::format(
            "merge: {} is not the file the shards explored: its sha256 is {}, theirs {} ({}); rerun every shard",
            first.file, loaded->content_sha256, first.provenance.scenario_sha256,
            what_changed(first.provenance, files.complete_files.front(), loaded->data_file_sha256,
                         first.file + " as it is now", "since")));
    std::vector<UnitOutcome> outcomes;
    for (const auto* part : by_index) outcomes.insert(outcomes.end(), part->outcomes.begin(), part->outcomes.end());
    ExploreOptions explore{first.settings.design, first.settings.seed, 1, first.settings.event_limit,
                           first.settings.prune};
    if (options.verify > 0) {
        ExploreOptions rerun = explore;
        const auto threads = worker_threads(0);
        if (!threads) return 2;
        rerun.threads = *threads;
        const VerifiedShards verified = verify_explore_shards(files, *loaded, rerun, options.verify);
        fmt::print(stderr,
                   "merge --verify: reran {} units of the exploration in {} {} ({} of them violating): every one "
                   "gave what its shard recorded\n",
                   verified.seeds, verified.shards, verified.shards == 1 ? "shard" : "shards", verified.failing);
    }
    explore.given = &outcomes;
    // The units' outcomes are the shards' word: what does not fit the plan is refused as
    // the shards' fault, in merge's words.
    const Exploration exploration = [&] {
        try {
            return run_explore(*loaded, explore);
        } catch (const ExploreError& error) {
            throw SweepError(fmt::format("merge: {}", error.what()));
        }
    }();
    deliver(rendered_exploration(exploration, options.format, false, options.program,
                                 options.output ? "never" : options.color),
            options.output);
    return exploration.held() ? 0 : 1;
}

// `locksim explore`: its options and their help on the program's command line.
Subcommand add_explore_command(CLI::App& app, const std::string& program) {
    struct Line {
        ExploreCommandOptions options;
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
    add_whole_number(*explore, "--seed", line->options.seed, "Seed for every run instead of the file's");
    add_whole_number(*explore, "--jobs,-j", line->options.jobs,
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
    explore->add_option("--shard", line->options.shard,
                        "Run one of n blocks of the exploration's work (its placements, and the start classes of\n"
                        "a range) and write JSON for `locksim merge`, which gives the output of the whole:\n" +
                            std::string(shard_forms_help));
    explore->add_option("--output,-o", line->options.output,
                        "Write the result to this file, whole or not at all (a temporary file, then a rename),\n"
                        "so a killed task never leaves half a shard");
    add_color(*explore, line->options.color);
    explore->footer(
        "A strike point is a moment right after one of a target node's events in the run without the\n"
        "file's faults; a placement is one fault at one strike point (two, with \"depth\": 2). Placements\n"
        "that strike the same node at the same place in the run's queue are the same run: one runs, the\n"
        "others share its outcome and are counted as pruned (--no-prune runs them all).\n"
        "A fault with an end (pause, crash, partition, loss burst, held message) given a range of\n"
        "lengths, {\"from\": \"1ms\", \"to\": \"2m\"}, is explored exactly, every start against every\n"
        "end: the output lists the regions of (start, end) in which it violates, and no fault outside\n"
        "them does (docs/explore.md). A clock step given a signed range of sizes,\n"
        "{\"from\": \"-40s\", \"to\": \"40s\"}, is tried at the first instant of each start class, its\n"
        "sizes refined to 1 ms there; other instants are not claimed.\n"
        "Exit 0 when the block's \"expect\" held, 1 when one failed, 2 for unusable input.\n"
        "Example: locksim explore scenarios/gc-pause-40s.json\n"
        "         locksim explore scenarios/gc-pause-40s.json --design fenced --format json\n"
        "         locksim explore scenarios/gc-pause-40s.json --report report\n"
        "Shards:  locksim explore FILE --shard 3/8 --output shard-3.json   (one of eight; an exact\n"
        "         exploration past 2,000,000 runs is refused with the shard count it needs)\n"
        "         locksim merge shard-*.json   (the output of the whole, text or --format json)\n"
        "Slurm:   SHARDS=8 scripts/sweep.sbatch FILE explore results/   (an array job and its merge)");
    add_event_limit(*explore, line->options.max_events);
    return Subcommand{.app = explore,
                      .run =
                          [line, explore] {
                              line->options.prune = !line->no_prune;
                              return explore_command(line->options);
                          },
                      .file = [line] { return std::string_view(line->options.file); }};
}

}  // namespace locksim
