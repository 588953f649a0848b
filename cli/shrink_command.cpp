#include "cli/shrink_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <memory>

#include "checks/command_line.hpp"
#include "checks/metric_table.hpp"
#include "cli/atomic_file.hpp"
#include "cli/output_paths.hpp"
#include "cli/terminal.hpp"
#include "cli/whole_number.hpp"
#include "reports/text_style.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/shrink_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {

int shrink_command(const ShrinkCommandOptions& options) {
    // The loader's checks first, with its one-line errors: shrink works on files that load.
    // The text is read once, so what is shrunk is what was checked.
    const std::string text = read_scenario_text(options.file);
    const Scenario loaded = parse_scenario(text, options.file, metric_names());
    // Before the runs, which print what they remove: the file can be written, and is not
    // the one shrunk.
    if (options.out) check_outputs({OutputTarget{"--out", *options.out}}, inputs_of(loaded));
    std::string design;
    if (options.design) {
        design = *options.design;
    } else if (loaded.designs.size() == 1) {
        design = loaded.designs.front().name;
    } else {
        std::vector<std::string> names;
        for (const auto& d : loaded.designs) names.push_back(d.name);
        fmt::print(stderr, "{}: --design: the file has {} designs ({}); name the one that failed\n", options.file,
                   names.size(), fmt::join(names, ", "));
        return 2;
    }
    if (options.given_fault && options.faults) {
        fmt::print(stderr, "--given-fault conditions the faults drawn, and --faults draws none: give one\n");
        return 2;
    }
    const ShrinkResult result = shrink(ShrinkRequest{options.file, text, design, options.seed.value_or(loaded.seed),
                                                     options.faults, options.given_fault, options.max_events});
    const std::string minimal = result.minimal.dump(2) + "\n";
    const TextStyle style(use_colour(color_choice(options.color)));
    fmt::print(stderr, "{} {}:\n", style.heading(fmt::format("Shrunk in {} runs, keeping", result.runs)),
               style.violation(result.violation));
    for (const auto& step : result.steps) fmt::print(stderr, "  {}\n", step);
    if (result.steps.empty()) fmt::print(stderr, "  nothing could be removed\n");
    if (!options.out) {
        fmt::print("{}", minimal);
        return 0;
    }
    write_file_atomically(*options.out, minimal, "--out");
    fmt::print(stderr, "{}; replay it: {} run {}\n", style.good(fmt::format("Wrote {}", *options.out)),
               shell_quoted(options.program), shell_quoted(*options.out));
    return 0;
}

// `locksim shrink`: its options and their help on the program's command line.
Subcommand add_shrink_command(CLI::App& app, const std::string& program) {
    struct Line {
        ShrinkCommandOptions options;
    };
    const auto line = std::make_shared<Line>();
    line->options.program = program;
    CLI::App* shrink = app.add_subcommand(
        "shrink", "Shrink a failing run to the smallest scenario file that still shows its violation");
    shrink->add_option("FILE", line->options.file, "Scenario file (JSON)")->required();
    add_whole_number(*shrink, "--seed", line->options.seed,
                     "The failing run's seed (default: the file's), e.g. one a sweep printed");
    shrink->add_option("--design", line->options.design, "The design that failed (default: the file's only design)");
    shrink->add_option("--faults", line->options.faults,
                       "These faults instead of the file's, as JSON: a placement explore printed");
    add_whole_number(*shrink, "--given-fault", line->options.given_fault,
                     "The seed is one of a sweep given that fault_generators/N strikes (`sweep --given-fault N`):\n"
                     "its faults are drawn so")
        ->type_name("N");
    shrink->add_option("--out,-o", line->options.out,
                       "Write the minimal scenario file here (default: standard output)");
    shrink->footer(
        "Drawn faults become fixed ones; then faults, customers, servers and links are removed, pauses,\n"
        "steps and delays shortened, times replaced by the events they follow and the horizon moved in,\n"
        "each kept only if the run still shows the same kind of violation. What was removed goes to stderr;\n"
        "the file's \"expect\" pins the violation, so it can join scenarios/ as a regression test.\n"
        "Exit 0 with a file, 2 when the run shows no violation or the input is unusable.\n"
        "Example: locksim shrink scenarios/random-gc-pauses.json --seed 57 --design unfenced --out minimal.json");
    add_color(*shrink, line->options.color);
    add_event_limit(*shrink, line->options.max_events);
    return Subcommand{.app = shrink,
                      .run = [line, shrink] { return shrink_command(line->options); },
                      .file = [line] { return std::string_view(line->options.file); }};
}

}  // namespace locksim
