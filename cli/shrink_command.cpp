#include "cli/shrink_command.hpp"

#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "checks/command_line.hpp"
#include "cli/atomic_file.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/shrink_runner.hpp"

namespace locksim {

int shrink_command(const ShrinkCommandOptions& options) {
    // The loader's checks first, with its one-line errors: shrink works on files that load.
    const auto loaded = load_scenario_or_report(options.file);
    if (!loaded) return 2;
    std::string design;
    if (options.design) {
        design = *options.design;
    } else if (loaded->designs.size() == 1) {
        design = loaded->designs.front().name;
    } else {
        std::vector<std::string> names;
        for (const auto& d : loaded->designs) names.push_back(d.name);
        fmt::print(stderr, "{}: --design: the file has {} designs ({}); name the one that failed\n", options.file,
                   names.size(), fmt::join(names, ", "));
        return 2;
    }
    std::ifstream in(options.file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();

    const ShrinkResult result = shrink(ShrinkRequest{
        options.file, text.str(), design, options.seed.value_or(loaded->seed), options.faults, options.max_events});
    const std::string minimal = result.minimal.dump(2) + "\n";
    fmt::print(stderr, "Shrunk in {} runs, keeping {}:\n", result.runs, result.violation);
    for (const auto& step : result.steps) fmt::print(stderr, "  {}\n", step);
    if (result.steps.empty()) fmt::print(stderr, "  nothing could be removed\n");
    if (!options.out) {
        fmt::print("{}", minimal);
        return 0;
    }
    write_file_atomically(*options.out, minimal);
    fmt::print(stderr, "Wrote {}; replay it: {} run {}\n", *options.out, shell_quoted(options.program),
               shell_quoted(*options.out));
    return 0;
}

}  // namespace locksim
