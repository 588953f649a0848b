// locksim: a deterministic simulator of distributed locks. See README.md.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>

#include "cli/build_info.hpp"
#include "cli/check_command.hpp"
#include "cli/command_failure.hpp"
#include "cli/explore_command.hpp"
#include "cli/kinds_command.hpp"
#include "cli/list_command.hpp"
#include "cli/metrics_command.hpp"
#include "cli/report_command.hpp"
#include "cli/run_command.hpp"
#include "cli/shrink_command.hpp"
#include "cli/sweep_command.hpp"
#include "cli/whole_number.hpp"

namespace {

// The --seed of a subcommand, if given: false after printing the error.
bool read_seed(const CLI::App* command, const std::string& text, std::optional<std::uint64_t>& seed) {
    if (command->count("--seed") == 0) return true;
    seed = locksim::parse_whole_number(text);
    if (seed) return true;
    fmt::print(stderr, "--seed: expected a whole number from 0 to 18446744073709551615, got \"{}\"\n", text);
    return false;
}

// Every command that runs scenarios takes --max-events: the documented limit a runaway
// world stops at (exit 2), raised for a run that is meant to be long.
void add_event_limit(CLI::App* command, std::uint64_t& limit) {
    command
        ->add_option("--max-events", limit,
                     fmt::format("Stop a run that handles more events than this, with exit 2 (default {})",
                                 locksim::Engine::default_event_limit))
        ->check(CLI::PositiveNumber);
}

// Every command that prints takes --color: colour on a terminal unless NO_COLOR is set.
void add_color(CLI::App* command, std::string& color) {
    command->add_option("--color", color, "auto (default): on a terminal unless NO_COLOR is set; always; never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
}

}  // namespace

int main(int argc, char** argv) {
    using namespace locksim;
    const std::string version = fmt::format("locksim {} (commit {})", locksim_version, build_commit);
    CLI::App app{version +
                     " — a deterministic simulator of distributed locks under pauses, clock jumps and delays.\n"
                     "Runs every design of a scenario under the same seed and faults, and counts double charges,\n"
                     "overlapping holders and stale writes. Same file and seed, same bytes out.",
                 "locksim"};
    app.set_version_flag("--version", version);
    app.require_subcommand(1);
    app.footer(
        "Exit codes: 0 every expectation held, 1 an expectation failed, 2 unusable input or arguments,\n"
        "3 an internal error (a bug: please report it with the file and seed).\n"
        "Example: locksim run scenarios/gc-pause-40s.json");

    RunCommandOptions run;
    run.program = argv[0];
    CLI::App* run_app = app.add_subcommand("run", "Run a scenario file and print what went wrong in each design");
    run_app->add_option("FILE", run.file, "Scenario file (JSON), e.g. scenarios/gc-pause-40s.json")->required();
    std::string seed;
    run_app->add_option("--seed", seed,
                        "Seed for this run instead of the file's (0 to 18446744073709551615; replays a run exactly)");
    run_app->add_option("--design", run.design,
                        "Run only the design with this name; \"all\": every design, and the text output\n"
                        "draws every design's timeline in turn (the first design's otherwise)");
    run_app->add_option("--faults", run.faults,
                        "These faults instead of the file's, as JSON written like its \"faults\" (no faults are\n"
                        "drawn): replays a placement that `locksim explore` found, e.g.\n"
                        "'[{\"pause\": \"server-1\", \"for\": \"40s\", \"when\": {\"event\": \"job.preparing\", "
                        "\"node\": \"server-1\", \"nth\": 2}}]'");
    std::string format = "text";
    run_app
        ->add_option(
            "--format", format,
            "text: table and timeline (default); json: metrics and expectations; trace: every event;\n"
            "mermaid: a sequenceDiagram per design, as Markdown; perfetto: Chrome trace JSON for ui.perfetto.dev")
        ->check(CLI::IsMember({"text", "json", "trace", "mermaid", "perfetto"}));
    run_app->add_option("--report", run.report_directory,
                        "Also write the scenario's HTML report (one self-contained page) into this directory");
    std::string color = "auto";
    add_color(run_app, color);
    run_app->footer(
        "Examples: locksim run scenarios/gc-pause-40s.json --report report\n"
        "          locksim run scenarios/gc-pause-40s.json --seed 7 --format json\n"
        "          locksim run scenarios/gc-pause-40s.json --design fenced --format mermaid > figure.md");

    SweepCommandOptions sweep;
    sweep.program = argv[0];
    CLI::App* sweep_app = app.add_subcommand(
        "sweep", "Run a scenario under many seeds and report how often each design breaks (rates with 95% intervals)");
    sweep_app->add_option("FILE", sweep.file, "Scenario file (JSON)")->required();
    sweep_app->add_option("--seeds", sweep.seeds, "How many seeds to run")->required();
    sweep_app->add_option("--start", sweep.start, "The first seed (default 1)");
    sweep_app->add_option("--jobs,-j", sweep.jobs,
                          "Worker threads (default: the CPUs this process may use, as taskset or Slurm allot them);\n"
                          "totals never depend on it");
    sweep_app->add_option("--format", sweep.format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
    sweep_app->add_option("--shard", sweep.shard,
                          "Run one of n equal blocks of the seeds and write JSON for `locksim merge`:\n"
                          "  3/8        the third of eight (shards count from 1)\n"
                          "  slurm/8    $SLURM_ARRAY_TASK_ID, from 1: submit with sbatch --array=1-8\n"
                          "  k8s/8      $JOB_COMPLETION_INDEX of a Kubernetes Indexed Job, from 0\n"
                          "  from0:I/8  an index counted from 0, such as HTCondor's $(Process)");
    sweep_app->add_option("--output,-o", sweep.output,
                          "Write the result to this file, whole or not at all (a temporary file, then a rename),\n"
                          "so a killed task never leaves half a shard");
    sweep_app->add_option("--design", sweep.design, "Run only the design with this name");
    sweep_app->add_option("--max-rate", sweep.max_rates,
                          "A gate for CI, DESIGN=RATE (0.0001 or 0.01%): exit 1 when the design's violation rate\n"
                          "is above it; PASS or FAIL per gate on stderr. Repeat for several designs");
    sweep_app->add_option("--junit", sweep.junit, "Also write the --max-rate gates as JUnit XML to this file");
    sweep_app->add_option("--vary", sweep.vary,
                          "A parameter study: FIELD=V1,V2,… (lock.ttl=5s,10s,30s; a path with / or . such as\n"
                          "fault_generators/0/mean_interval=10s,1m). Repeat it for a grid; every point runs the same\n"
                          "seeds, and the table has one row per point and design");
    sweep_app->add_option("--report", sweep.report_directory,
                          "With --vary: also write a page of charts (one self-contained HTML page) into this\n"
                          "directory, as <scenario>-study.html: per varied field, the violation rate against its\n"
                          "values on a log scale, with the intervals, a line per design");
    sweep_app->add_option("--runs-per-day", sweep.runs_per_day,
                          "How often the job runs in production: each rate becomes expected incidents a day and a\n"
                          "year, with their interval");
    add_color(sweep_app, sweep.color);
    sweep_app->footer(
        "Example: locksim sweep scenarios/random-gc-pauses.json --seeds 100000\n"
        "CI gate: locksim sweep FILE --seeds 20000 --design fenced --max-rate fenced=0.001 --junit rate.xml\n"
        "Study:   locksim sweep FILE --seeds 500 --vary lock.ttl=5s,10s,30s --vary "
        "fault_generators/0/mean_interval=10s,1m\n"
        "Charts:  locksim sweep FILE --seeds 500 --vary lock.ttl=1s,10s,100s --report report\n"
        "Shards:  locksim sweep FILE --seeds 100000 --shard 3/8 --output shard-3.json\n"
        "         locksim merge shard-*.json\n"
        "Slurm:   scripts/sweep.sbatch FILE 100000 results/   (an array job and its merge)");

    MergeCommandOptions merge;
    merge.program = argv[0];
    CLI::App* merge_app = app.add_subcommand(
        "merge", "Combine sweep shards into the totals of one unsharded sweep, after proving they are one sweep");
    merge_app->add_option("FILES", merge.files, "Shard files written by sweep --shard")->required();
    CLI::Option* missing_flag = merge_app->add_flag(
        "--missing", merge.missing,
        "Only print the shard indices not yet present (or incomplete), as sbatch --array= takes them,\n"
        "such as 3,5-7; nothing when all are there");
    merge_app
        ->add_flag("--partial", merge.partial,
                   "Totals over the shards present so far, labelled PARTIAL: progress across a running array")
        ->excludes(missing_flag);
    merge_app->add_option("--format", merge.format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
    merge_app->add_option("--output,-o", merge.output, "Write the result to this file, whole or not at all");
    add_color(merge_app, merge.color);
    merge_app->footer(
        "Refuses (exit 2, naming the file) a shard given twice, a missing or incomplete shard, totals that\n"
        "do not add up, and shards of another scenario file or another locksim build.\n"
        "Example: locksim merge shard-*.json\n"
        "         sbatch --array=$(locksim merge --missing shard-*.json) ...");

    std::vector<std::string> list_paths{"scenarios"};
    CLI::App* list_app = app.add_subcommand("list", "List the scenarios with the chapter each tells and its story");
    std::string list_format = "text";
    list_app->add_option("PATH", list_paths, "Scenario files or directories (default: scenarios)");
    list_app
        ->add_option("--format", list_format,
                     "text (default) or json (file, name, section, lesson, description, designs)")
        ->check(CLI::IsMember({"text", "json"}));
    std::string list_color = "auto";
    add_color(list_app, list_color);
    list_app->footer("Example: locksim list\n         locksim list scenarios --format json");

    std::string kinds_format = "text";
    CLI::App* kinds_app = app.add_subcommand(
        "kinds", "List every kind of trace event with its fields and their types: what a fault's \"when\" may name");
    kinds_app->add_option("--format", kinds_format, "text (default), markdown (a table) or json (for scripts)")
        ->check(CLI::IsMember({"text", "markdown", "json"}));
    kinds_app->footer("Example: locksim kinds\n         locksim kinds --format json");

    std::string metrics_format = "text";
    CLI::App* metrics_app = app.add_subcommand(
        "metrics", "List every metric the checkers compute, with what it counts: what a design's \"expect\" may name");
    metrics_app
        ->add_option("--format", metrics_format,
                     "text (default), markdown (a table), json (for scripts) or schema (the JSON Schema's lists)")
        ->check(CLI::IsMember({"text", "markdown", "json", "schema"}));
    metrics_app->footer("Example: locksim metrics\n         locksim metrics --format json");

    CheckCommandOptions check;
    check.program = argv[0];
    std::string check_seed;
    CLI::App* check_app = app.add_subcommand(
        "check",
        "Run every scenario under PATH (files, or directories searched for *.json) and check its expectations: for CI");
    check_app->add_option("PATH", check.paths, "Scenario files or directories")->required();
    check_app->add_option("--seed", check_seed, "Run every file under this seed instead of its own");
    check_app->add_option("--junit", check.junit, "Also write JUnit XML to this file (one testsuite per scenario)");
    check_app->add_flag("--refuse-inert", check.refuse_inert,
                        "Fail a design whose expectations hold only because every fault, whatever its kind, missed "
                        "the lock (a pause on a server waiting for it, a delay spike on a link that carried none of "
                        "its messages, a clock step on a node that never held it); without it, check warns");
    check_app->add_option("--jobs,-j", check.jobs,
                          "Worker threads for files with an \"explore\" block (default: the CPUs this process may\n"
                          "use); results never depend on it");
    add_color(check_app, check.color);
    check_app->footer(
        "Prints PASS or FAIL per scenario and design, then \"N passed, N failed\". A file's \"explore\" block\n"
        "adds a test per design it sets expectations for (\"explore: DESIGN\"), run as `locksim explore` runs it;\n"
        "a \"sweep\" block one per design over its seeds (\"sweep of N seeds: DESIGN\"); --seed changes neither.\n"
        "WARN: a fault missed the lock and changed nothing, or a design passes only because every fault did\n"
        "(without any it counts the same); the line names each fault and what it struck instead.\n"
        "Exit 0 when every expectation held, 1 when one failed, 2 when a file could not be used.\n"
        "Example: locksim check scenarios/ --junit locksim.xml");

    ExploreCommandOptions explore;
    explore.program = argv[0];
    CLI::App* explore_app = app.add_subcommand(
        "explore",
        "Try every fault of the file's \"explore\" block at every point where it can strike, per design,\n"
        "and report the windows in which one breaks the lock's promise, each with its replay command");
    explore_app->add_option("FILE", explore.file, "Scenario file (JSON) with an \"explore\" block")->required();
    explore_app->add_option("--design", explore.design, "Explore only the design with this name");
    std::string explore_seed;
    explore_app->add_option("--seed", explore_seed, "Seed for every run instead of the file's");
    explore_app->add_option("--jobs,-j", explore.jobs,
                            "Worker threads (default: the CPUs this process may use); results never depend on it");
    explore_app->add_option("--format", explore.format, "text (default) or json")
        ->check(CLI::IsMember({"text", "json"}));
    explore_app->add_flag("--placements", explore.placements, "With --format json: list every placement tried");
    bool no_prune = false;
    explore_app->add_flag("--no-prune", no_prune,
                          "Run every placement, also those that strike the same node at the same place in the\n"
                          "run's queue as one already run (by default they share its outcome); the results are the\n"
                          "same, only slower: for measuring and checking the pruning");
    explore_app->add_option("--report", explore.report_directory,
                            "Also write the vulnerability map (one self-contained HTML page, a cell per run) into\n"
                            "this directory, as <scenario>-explore.html");
    add_color(explore_app, explore.color);
    explore_app->footer(
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

    ShrinkCommandOptions shrink;
    shrink.program = argv[0];
    CLI::App* shrink_app = app.add_subcommand(
        "shrink", "Shrink a failing run to the smallest scenario file that still shows its violation");
    shrink_app->add_option("FILE", shrink.file, "Scenario file (JSON)")->required();
    std::string shrink_seed;
    shrink_app->add_option("--seed", shrink_seed,
                           "The failing run's seed (default: the file's), e.g. one a sweep printed");
    shrink_app->add_option("--design", shrink.design, "The design that failed (default: the file's only design)");
    shrink_app->add_option("--faults", shrink.faults,
                           "These faults instead of the file's, as JSON: a placement explore printed");
    shrink_app->add_option("--out,-o", shrink.out, "Write the minimal scenario file here (default: standard output)");
    shrink_app->footer(
        "Drawn faults become fixed ones; then faults, customers, servers and links are removed, pauses,\n"
        "steps and delays shortened, times replaced by the events they follow and the horizon moved in,\n"
        "each kept only if the run still shows the same kind of violation. What was removed goes to stderr;\n"
        "the file's \"expect\" pins the violation, so it can join scenarios/ as a regression test.\n"
        "Exit 0 with a file, 2 when the run shows no violation or the input is unusable.\n"
        "Example: locksim shrink scenarios/random-gc-pauses.json --seed 57 --design unfenced --out minimal.json");

    ReportCommandOptions report;
    report.program = argv[0];
    std::string report_seed;
    CLI::App* report_app = app.add_subcommand(
        "report", "Write an HTML report per scenario and a course index that orders them by the course's chapters");
    report_app->add_option("PATH", report.paths, "Scenario files or directories")->required();
    report_app->add_option("--out", report.out, "Directory to write the pages into (default: site)");
    report_app->add_option("--seed", report_seed, "Run every file under this seed instead of its own");
    report_app->footer(
        "Writes DIR/<scenario>.html for each scenario and DIR/index.html.\n"
        "Example: locksim report scenarios/ --out site && open site/index.html");

    add_event_limit(run_app, run.max_events);
    add_event_limit(sweep_app, sweep.max_events);
    add_event_limit(check_app, check.max_events);
    add_event_limit(explore_app, explore.max_events);
    add_event_limit(shrink_app, shrink.max_events);
    add_event_limit(report_app, report.max_events);

    // Bare `locksim`: the program's help, every command listed, as a mistake.
    if (argc == 1) {
        fmt::print(stderr, "{}", app.help());
        return 2;
    }

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);  // prints help, the version, or the error
        return code == 0 ? 0 : 2;
    }
    if (!read_seed(run_app, seed, run.seed) || !read_seed(check_app, check_seed, check.seed) ||
        !read_seed(report_app, report_seed, report.seed) || !read_seed(explore_app, explore_seed, explore.seed) ||
        !read_seed(shrink_app, shrink_seed, shrink.seed))
        return 2;
    run.format = format == "json"       ? RunFormat::json
                 : format == "trace"    ? RunFormat::trace
                 : format == "mermaid"  ? RunFormat::mermaid
                 : format == "perfetto" ? RunFormat::perfetto
                                        : RunFormat::text;
    run.color = color_choice(color);
    explore.prune = !no_prune;

    // The scenario file the command reads, for messages that do not name it.
    const std::string_view file = app.got_subcommand(run_app)       ? run.file
                                  : app.got_subcommand(sweep_app)   ? sweep.file
                                  : app.got_subcommand(explore_app) ? explore.file
                                  : app.got_subcommand(shrink_app)  ? shrink.file
                                                                    : std::string_view();
    try {
        if (app.got_subcommand(run_app)) return run_command(run);
        if (app.got_subcommand(sweep_app)) return sweep_command(sweep);
        if (app.got_subcommand(merge_app)) return merge_command(merge);
        if (app.got_subcommand(list_app)) return list_command(list_paths, list_format, list_color);
        if (app.got_subcommand(kinds_app)) return kinds_command(kinds_format);
        if (app.got_subcommand(metrics_app)) return metrics_command(metrics_format);
        if (app.got_subcommand(explore_app)) return explore_command(explore);
        if (app.got_subcommand(shrink_app)) return shrink_command(shrink);
        if (app.got_subcommand(report_app)) return report_command(report);
        if (app.got_subcommand(check_app)) return check_command(check);
    } catch (...) {
        return report_failure(std::current_exception(), file);
    }
    return 2;
}
