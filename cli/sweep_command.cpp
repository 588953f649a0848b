#include "cli/sweep_command.hpp"

#include <fmt/format.h>
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "checks/command_line.hpp"
#include "checks/metrics.hpp"
#include "checks/sweep_merge.hpp"
#include "cli/atomic_file.hpp"
#include "cli/build_info.hpp"
#include "cli/decimal_number.hpp"
#include "cli/explore_command.hpp"
#include "cli/output_paths.hpp"
#include "cli/report_command.hpp"
#include "cli/shard_choice.hpp"
#include "cli/terminal.hpp"
#include "cli/whole_number.hpp"
#include "cli/worker_threads.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/study_page.hpp"
#include "reports/junit.hpp"
#include "reports/study_report.hpp"
#include "reports/sweep_text.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/shard_verify.hpp"
#include "runners/study_runner.hpp"
#include "runners/sweep_runner.hpp"
#include "runners/vacuous_sweep.hpp"
#include "scenarios/schema/given_fault.hpp"
#include "scenarios/schema/input_file.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "scenarios/schema/shard_reader.hpp"
#include "scenarios/schema/varied_field.hpp"

namespace locksim {
namespace {

// A job run more often than once a millisecond is no job of this model; above this the
// incidents a day are a typing mistake.
constexpr std::uint64_t max_runs_per_day = 86'400'000;

// A sweep shard is a few kilobytes. An explore shard grows with its runs, about 1 to 3
// bytes a run in the shipped scenarios (a start class's ends are runs of alike outcomes):
// 256 MiB holds far more than the 2,000,000 runs a shard may plan for one family, even if
// every run ended a segment of its own. Anything bigger is not a shard, and a gigabyte of
// padding after one must not be read whole.
constexpr InputLimit shard_limit{256 << 20, "256 MiB", "a shard holds its tallies or its runs' outcomes"};

std::string rendered(const SweepSummary& summary, const std::string& format, const std::string& color,
                     const std::string& program, double runs_per_day = 0) {
    if (format == "json") return sweep_json(summary).dump(2) + "\n";
    // Colour only ever goes to a terminal, never into a file.
    return render_sweep_text(summary, program, use_colour(color_choice(color)), runs_per_day);
}

struct RateGate {
    std::string design;
    double max_rate = 0;
    std::string written;  // as given, for messages
    // ":upper": the 95 % interval's upper bound must be at most the rate, not only the rate
    // measured, so that too few runs cannot pass.
    bool upper = false;
};

constexpr std::string_view upper_suffix = ":upper";

// "fenced=0.0001", "fenced=0.01%" or "fenced=0.01%:upper": nullopt after printing why it is
// unusable.
std::optional<RateGate> parse_gate(const std::string& text, const Scenario& scenario) {
    const auto equals = text.rfind('=');
    const auto fail = [&text](const std::string& why) {
        fmt::print(stderr, "--max-rate {}: {}\n", text, why);
        return std::nullopt;
    };
    if (equals == std::string::npos || equals == 0)
        return fail("expected DESIGN=RATE, such as fenced=0.0001, fenced=0.01% or fenced=0.01%:upper");
    RateGate gate{text.substr(0, equals), 0, text.substr(equals + 1)};
    gate.upper = gate.written.ends_with(upper_suffix);
    if (gate.upper) gate.written.resize(gate.written.size() - upper_suffix.size());
    std::string number = gate.written;
    const auto& designs = scenario.designs;
    if (std::none_of(designs.begin(), designs.end(), [&](const Design& d) { return d.name == gate.design; })) {
        std::vector<std::string> names;
        for (const auto& d : designs) names.push_back(d.name);
        return fail(fmt::format("no design named \"{}\"; the designs are {}", gate.design, fmt::join(names, ", ")));
    }
    const bool percent = !number.empty() && number.back() == '%';
    if (percent) number.pop_back();
    // Digits, and more after one point: strtod alone would take "0x1", "5e-1", "inf" or " 1".
    const std::size_t point = number.find('.');
    const auto digits = [](std::string_view text) {
        return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const bool plain = digits(std::string_view(number).substr(0, point)) &&
                       (point == std::string::npos || digits(std::string_view(number).substr(point + 1)));
    char* end = nullptr;
    errno = 0;
    const double value = plain ? std::strtod(number.c_str(), &end) : -1;
    if (errno != 0 || !plain || *end != '\0' || !(value >= 0) || value > (percent ? 100 : 1))
        return fail("expected a rate from 0 to 1, or a percentage such as 0.01%");
    gate.max_rate = percent ? value / 100 : value;
    if (gate.upper && gate.max_rate == 0)
        return fail("an interval's upper bound is above 0 after any number of runs; bound it by a rate above 0");
    return gate;
}

SweepProvenance provenance_of(const Scenario& scenario, const SweepSummary& summary) {
    return SweepProvenance{scenario.content_sha256, locksim_version, build_commit,
                           sweep_command_line(summary, summary.shard), scenario.data_file_sha256};
}

// The fewest runs whose interval's upper bound can be at most `rate`: with no failing run
// the Wilson bound is z^2 / (n + z^2), at most `rate` from n = z^2 (1 - rate) / rate on.
std::uint64_t runs_to_bound(double rate) {
    constexpr double z = 1.959963984540054;
    return static_cast<std::uint64_t>(std::ceil(z * z * (1 - rate) / rate));
}

// Prints PASS or FAIL per gate on stderr (stdout keeps the one document) and writes the
// JUnit file if asked; false when a gate was breached.
bool judge_gates(const SweepSummary& summary, const Scenario& scenario, const std::vector<RateGate>& gates,
                 const SweepCommandOptions& options) {
    CheckedScenario checked{summary.file, summary.scenario, "", {}};
    bool held = true;
    for (const auto& gate : gates) {
        const auto tally = std::find_if(summary.designs.begin(), summary.designs.end(),
                                        [&](const DesignTally& d) { return d.name == gate.design; });
        const double rate = static_cast<double>(tally->runs_with_violation) /
                            static_cast<double>(std::max<std::uint64_t>(1, tally->runs));
        const auto ci = wilson_interval(tally->runs_with_violation, std::max<std::uint64_t>(1, tally->runs));
        CheckedDesign result{fmt::format("{}violation rate of {} at most {}", gate.upper ? "upper bound of the " : "",
                                         gate.design, gate.written),
                             {},
                             ""};
        const std::string measured =
            fmt::format("{} of {} runs ({:.4g}%, 95% CI {:.4g}%–{:.4g}%; a fault reached the lock in {} of them)",
                        tally->runs_with_violation, tally->runs, 100 * rate, 100 * ci.low, 100 * ci.high,
                        tally->runs_fault_reached);
        // A rate over runs cut short is the rate of what they got to do, and over runs no
        // fault reached that of runs without faults: no pass either way.
        const std::string cut =
            describe_unfinished(*tally, options.program, summary.file, summary.settings.given_fault);
        const std::string no_fault_reached =
            describe_vacuous(*tally, options.program, summary.file, summary.seeds.first, summary.settings.given_fault,
                             why_no_fault_reached(scenario, tally->name));
        const std::string vacuous = no_fault_reached.empty() ? "" : "vacuous: " + no_fault_reached;
        if (rate > gate.max_rate) {
            result.failures.push_back(fmt::format("{} broke it, above {}", measured, gate.written));
            if (!tally->failing_seeds.empty())
                result.failures.push_back("replay: " + replay_command(options.program, summary.file,
                                                                      tally->failing_seeds.front(), gate.design,
                                                                      std::nullopt, summary.settings.given_fault));
        } else if (gate.upper && ci.high > gate.max_rate) {
            result.failures.push_back(fmt::format(
                "{}: the interval's upper bound {:.4g}% is above {}: these runs cannot rule out a rate above it (even "
                "with no failing run that takes at least {} runs)",
                measured, 100 * ci.high, gate.written, runs_to_bound(gate.max_rate)));
        }
        for (const std::string& why : {cut, vacuous}) {
            if (why.empty()) continue;
            result.failures.push_back(result.failures.empty()
                                          ? fmt::format("{} would be at most {}, but {}", measured, gate.written, why)
                                          : why);
        }
        if (!result.failures.empty()) {
            held = false;
            fmt::print(stderr, "FAIL rate gate {}: {}\n", gate.design, fmt::join(result.failures, "; "));
        } else {
            fmt::print(stderr, "PASS rate gate {}: {}, {}at most {}\n", gate.design, measured,
                       gate.upper ? "the upper bound " : "", gate.written);
        }
        checked.designs.push_back(std::move(result));
    }
    if (options.junit) write_file_atomically(*options.junit, render_junit({checked}, "locksim sweep"), "--junit");
    return held;
}

// The command that reproduces a study's rates: like sweep_command_line, the thread count
// and where the results go are left out, since they never change them. `vary`: each
// field as --vary takes it, "lock.ttl=5s,10s".
std::string study_command_line(const std::string& file, SeedBlock seeds, const SweepSettings& settings,
                               const std::vector<std::string>& vary) {
    std::string command = sweep_command_line(file, seeds, settings, 1, 1);
    for (const auto& text : vary) command += " --vary " + shell_quoted(text);
    return command;
}

// `sweep FILE --vary …`: the sweep at every point of the grid, as one table or document,
// and with --report a page of charts.
int study_command(const SweepCommandOptions& options, unsigned threads) {
    if (options.shard || !options.max_rates.empty() || options.junit || options.runs_per_day > 0 ||
        options.given_fault) {
        fmt::print(stderr,
                   "--vary runs a study of whole sweeps: it takes no --shard, --max-rate, --junit, --runs-per-day or "
                   "--given-fault (run one point as a plain sweep for those)\n");
        return 2;
    }
    std::vector<VariedField> fields;
    std::uint64_t points = 1;
    for (const auto& text : options.vary) {
        auto field = parse_varied_field(text);
        if (!field || !varies_apart(*field, fields)) return 2;
        points *= field->values.size();
        if (points > max_study_points) {
            fmt::print(stderr, "--vary: the grid has more than {} points; vary fewer values\n", max_study_points);
            return 2;
        }
        fields.push_back(std::move(*field));
    }
    Study study;
    {
        ProgressBar bar(points * options.seeds, "runs");
        study = run_study(
            options.file, fields, SeedBlock{options.start, options.seeds}, threads,
            [&bar](std::uint64_t done) { bar.update(done); }, options.max_events, options.design);
    }
    study.command = study_command_line(options.file, SeedBlock{options.start, options.seeds},
                                       SweepSettings{options.design, options.max_events}, options.vary);
    const std::string text = options.format == "json"
                                 ? study_json(study).dump(2) + "\n"
                                 : render_study_text(study, !options.output && use_colour(color_choice(options.color)));
    deliver(text, options.output);
    if (options.report_directory) {
        // DIR/<scenario>-study.html; where it went is for the person at the terminal, on
        // stderr, so that stdout stays one clean document.
        const std::string page = study_page_name(study.scenario);
        write_files_atomically(*options.report_directory, {OutputFile{page, render_study_page(study)}}, "--report");
        fmt::print(stderr, "Study charts: {} (open it in a browser)\n",
                   (std::filesystem::path(*options.report_directory) / page).string());
    }
    return 0;
}

}  // namespace

std::string study_page(const Scenario& scenario, unsigned threads, std::uint64_t event_limit) {
    const StudySpec& spec = *scenario.study;
    Study study = run_study(
        scenario.file, spec.fields, spec.seeds, threads, [](std::uint64_t) {}, event_limit, std::nullopt);
    std::vector<std::string> vary;
    for (const auto& field : spec.fields)
        vary.push_back(fmt::format("{}={}", field.path, fmt::join(field.written, ",")));
    study.command = study_command_line(scenario.file, spec.seeds, SweepSettings{std::nullopt, event_limit}, vary);
    return render_study_page(study);
}

int sweep_command(const SweepCommandOptions& options) {
    if (options.seeds == 0) {
        fmt::print(stderr, "--seeds: expected at least 1 seed\n");
        return 2;
    }
    if (options.start > UINT64_MAX - (options.seeds - 1)) {
        fmt::print(stderr, "--start: {} seeds from {} would pass seed 2^64-1 ({}); lower --start or --seeds\n",
                   options.seeds, options.start, UINT64_MAX);
        return 2;
    }
    ShardChoice shard;
    if (options.shard) {
        const std::optional<ShardChoice> chosen = chosen_shard(*options.shard);
        if (!chosen) return 2;
        shard = *chosen;
    }
    if (shard.count > options.seeds) {
        fmt::print(stderr, "--shard {}: {} seeds cannot fill {} shards; split them into at most {}\n", *options.shard,
                   options.seeds, shard.count, options.seeds);
        return 2;
    }
    const auto loaded = load_scenario_or_report(options.file);
    if (!loaded) return 2;
    const Scenario& scenario = *loaded;
    if (!has_design_or_report(scenario, options.design)) return 2;
    if (options.report_directory && options.vary.empty()) {
        fmt::print(stderr,
                   "--report draws the charts of a parameter study: add --vary FIELD=V1,V2,… (such as "
                   "lock.ttl=5s,10s,30s)\n");
        return 2;
    }
    // Before the runs, which may take hours, rather than after them.
    std::vector<OutputTarget> outputs;
    if (options.output) outputs.push_back(OutputTarget{"--output", *options.output});
    if (options.junit) outputs.push_back(OutputTarget{"--junit", *options.junit});
    if (options.report_directory)
        outputs.push_back(OutputTarget{"--report", *options.report_directory, true, {study_page_name(scenario.name)}});
    check_outputs(outputs, inputs_of(scenario));
    if (!options.vary.empty()) {
        const auto threads = worker_threads(options.jobs);
        return threads ? study_command(options, *threads) : 2;
    }
    std::vector<RateGate> gates;
    for (const auto& text : options.max_rates) {
        auto gate = parse_gate(text, scenario);
        if (!gate) return 2;
        if (options.design && gate->design != *options.design) {
            fmt::print(stderr, "--max-rate {}: this sweep runs only the design \"{}\"\n", text, *options.design);
            return 2;
        }
        gates.push_back(std::move(*gate));
    }
    if (options.shard && (!gates.empty() || options.junit)) {
        fmt::print(stderr, "--max-rate and --junit judge a whole sweep, not one shard of it: run them unsharded\n");
        return 2;
    }
    const SeedBlock all{options.start, options.seeds};
    const SeedBlock mine = shard_block(all, shard.index, shard.count);
    const auto threads = worker_threads(options.jobs);
    if (!threads) return 2;

    SweepSummary summary;
    try {
        ProgressBar bar(mine.count, "seeds");
        // A shard keeps its per-seed counts, for `merge` to check and rerun.
        summary = run_sweep(
            scenario, mine, *threads, [&bar](std::uint64_t done) { bar.update(done); },
            SweepSettings{options.design, options.max_events, options.given_fault}, options.shard.has_value());
    } catch (const GivenFaultError& error) {
        fmt::print(stderr, "{}\n", error.what());
        return 2;
    }
    summary.seeds = all;
    summary.shard = shard.index;
    summary.shards = shard.count;
    summary.provenance = provenance_of(scenario, summary);
    // A shard is always JSON: it is for `merge`.
    const std::string format = options.shard ? "json" : options.format;
    deliver(rendered(summary, format, options.output ? "never" : options.color, options.program, options.runs_per_day),
            options.output);
    return judge_gates(summary, scenario, gates, options) ? 0 : 1;
}

int merge_command(const MergeCommandOptions& options) {
    if (options.output) check_outputs({OutputTarget{"--output", *options.output}}, options.files);
    ShardFiles files;
    for (const auto& file : options.files) {
        std::string text;
        try {
            text = read_input_file(file, shard_limit);
        } catch (const InputFileError& error) {
            if (error.problem == InputProblem::directory)
                throw SweepError(
                    fmt::format("{}: is a directory; give the shard files in it, such as {}/shard-*.json", file, file));
            throw SweepError(input_error_line(file, error));
        }
        add_shard_file(files, file, text);
    }
    if (options.missing) {
        const auto missing = missing_shards(files);
        const std::uint32_t shards = files.complete.front().shards;
        if (missing.empty())
            fmt::print(stderr, "merge: {} present and complete\n",
                       shards == 1 ? "the one shard is" : fmt::format("all {} shards are", shards));
        else
            fmt::print("{}\n", index_ranges(missing));
        return 0;
    }
    if (!files.explorations.empty() && files.explorations.front()) return merge_exploration(files, options);
    if (options.partial)
        for (const auto& cut : files.incomplete) fmt::print(stderr, "merge: {} is incomplete; left out\n", cut.file);
    const SweepSummary merged = merge_shards(files, options.partial ? MergeMode::partial : MergeMode::whole);
    if (options.verify > 0) {
        const auto threads = worker_threads(0);
        if (!threads) return 2;
        const VerifiedShards verified =
            verify_sweep_shards(files, options.verify, *threads, locksim_version, build_commit);
        fmt::print(stderr,
                   "merge --verify: reran {} seeds of {} {} ({} of them failing; {} runs in all): every run "
                   "counted what its shard recorded\n",
                   verified.seeds, verified.shards, verified.shards == 1 ? "shard" : "shards", verified.failing,
                   verified.runs);
    }
    const std::string color = options.output ? "never" : options.color;
    deliver(rendered(merged, options.format, color, options.program), options.output);
    return 0;
}

// `locksim sweep`: its options and their help on the program's command line.
Subcommand add_sweep_command(CLI::App& app, const std::string& program) {
    const auto options = std::make_shared<SweepCommandOptions>();
    options->program = program;
    CLI::App* sweep = app.add_subcommand(
        "sweep", "Run a scenario under many seeds and report how often each design breaks (rates with 95% intervals)");
    sweep->add_option("FILE", options->file, "Scenario file (JSON)")->required();
    add_whole_number(*sweep, "--seeds", options->seeds, "How many seeds to run", 1)->required();
    add_whole_number(*sweep, "--start", options->start, "The first seed (default 1)");
    add_whole_number(*sweep, "--jobs,-j", options->jobs,
                     "Worker threads (default: the CPUs this process may use, as taskset or Slurm allot them);\n"
                     "totals never depend on it");
    sweep->add_option("--format", options->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
    sweep->add_option("--shard", options->shard,
                      std::string("Run one of n equal blocks of the seeds and write JSON for `locksim merge`:\n") +
                          std::string(shard_forms_help));
    sweep->add_option("--output,-o", options->output,
                      "Write the result to this file, whole or not at all (a temporary file, then a rename),\n"
                      "so a killed task never leaves half a shard");
    sweep->add_option("--design", options->design, "Run only the design with this name");
    sweep->add_option("--max-rate", options->max_rates,
                      "A gate for CI, DESIGN=RATE (0.0001 or 0.01%): exit 1 when the design's violation rate\n"
                      "is above it, when a run was cut by the horizon, or when no fault reached the lock in any\n"
                      "run; DESIGN=RATE:upper also when the 95% interval's upper bound is above it, so that too\n"
                      "few runs cannot pass. PASS or FAIL per gate on stderr. Repeat for several designs");
    sweep->add_option("--junit", options->junit, "Also write the --max-rate gates as JUnit XML to this file");
    sweep->add_option("--vary", options->vary,
                      "A parameter study: FIELD=V1,V2,… (lock.ttl=5s,10s,30s; a path with / or . such as\n"
                      "fault_generators/0/mean_interval=10s,1m). Repeat it for a grid; every point runs the same\n"
                      "seeds, and the table has one row per point and design");
    sweep->add_option("--report", options->report_directory,
                      "With --vary: also write a page of charts (one self-contained HTML page) into this\n"
                      "directory, as <scenario>-study.html: per varied field, the violation rate against its\n"
                      "values on a log scale, with the intervals, a line per design");
    add_decimal(*sweep, "--runs-per-day", options->runs_per_day,
                fmt::format("How often the job runs in production, a number from 0.000001 to {} with at most\n"
                            "six digits after the point (288: every five minutes; 0.033333: monthly): each rate\n"
                            "becomes expected incidents a day and a year, with their interval",
                            max_runs_per_day),
                1, max_runs_per_day * 1'000'000);
    add_whole_number(*sweep, "--given-fault", options->given_fault,
                     "For a rare fault: draw every run given that fault_generators/N strikes at least once\n"
                     "(its first fault falls in the window by the exponential law cut there), and weigh each\n"
                     "rate by the exact probability that it does. Rates per run are then given the fault; the\n"
                     "rates with it, a day and a year count incidents in runs where it strikes, from far fewer\n"
                     "seeds than a plain sweep needs. Runs without it are not drawn: sweep those plainly")
        ->type_name("N");
    add_color(*sweep, options->color);
    sweep->footer(
        "Example: locksim sweep scenarios/random-gc-pauses.json --seeds 100000\n"
        "CI gate: locksim sweep FILE --seeds 20000 --design fenced --max-rate fenced=0.001 --junit rate.xml\n"
        "Study:   locksim sweep FILE --seeds 500 --vary lock.ttl=5s,10s,30s --vary "
        "fault_generators/0/mean_interval=10s,1m\n"
        "Charts:  locksim sweep FILE --seeds 500 --vary lock.ttl=1s,10s,100s --report report\n"
        "Rare:    locksim sweep FILE --seeds 2000 --given-fault 0 --runs-per-day 24\n"
        "Shards:  locksim sweep FILE --seeds 100000 --shard 3/8 --output shard-3.json\n"
        "         locksim merge shard-*.json\n"
        "Slurm:   scripts/sweep.sbatch FILE 100000 results/   (an array job and its merge)");
    add_event_limit(*sweep, options->max_events);
    return Subcommand{.app = sweep,
                      .run = [options] { return sweep_command(*options); },
                      .file = [options] { return std::string_view(options->file); }};
}

// `locksim merge`: its options and their help on the program's command line.
Subcommand add_merge_command(CLI::App& app, const std::string& program) {
    const auto options = std::make_shared<MergeCommandOptions>();
    options->program = program;
    CLI::App* merge = app.add_subcommand(
        "merge",
        "Combine sweep shards into the totals of one unsharded sweep, or explore shards into the output of\n"
        "the whole exploration, after proving they are one sweep or exploration");
    merge->add_option("FILES", options->files, "Shard files written by sweep --shard or explore --shard")->required();
    CLI::Option* missing =
        merge->add_flag("--missing", options->missing,
                        "Only print the shard indices not yet present (or incomplete), as sbatch --array= takes them,\n"
                        "such as 3,5-7; nothing when all are there");
    merge
        ->add_flag("--partial", options->partial,
                   "Totals over the shards present so far, labelled PARTIAL: progress across a running array")
        ->excludes(missing);
    add_whole_number(*merge, "--verify", options->verify,
                     "Before merging, rerun K seeds of each shard (its failing seeds first, then seeds spread\n"
                     "evenly over its block) with the scenario file and refuse a shard whose runs do not count\n"
                     "what it recorded: the defence against an edited shard (explore shards: K units of each).\n"
                     "Needs the locksim that swept",
                     1)
        ->type_name("K")
        ->excludes(missing);
    merge->add_option("--format", options->format, "text (default) or json")->check(CLI::IsMember({"text", "json"}));
    merge->add_option("--output,-o", options->output, "Write the result to this file, whole or not at all");
    add_color(*merge, options->color);
    merge->footer(
        "Refuses (exit 2, naming the file) a file that is not strictly a shard (a key twice, a field unknown\n"
        "or missing), a shard given twice, a missing or incomplete shard, totals that do not add up (to the\n"
        "per-seed counts, or within 64 bits), and shards that differ in any field but the file's path\n"
        "(another scenario, file of samples, locksim build, design or event limit).\n"
        "Explore shards merge into exactly what `locksim explore FILE` prints (and exits with), read\n"
        "again from FILE, which must still be the file explored; --partial is for sweeps only.\n"
        "Example: locksim merge shard-*.json\n"
        "         sbatch --array=$(locksim merge --missing shard-*.json) ...");
    return Subcommand{.app = merge, .run = [options] { return merge_command(*options); }};
}

}  // namespace locksim
