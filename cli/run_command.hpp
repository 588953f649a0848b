#pragma once
// `locksim run FILE`: run a scenario and print the table, a timeline and the replay line.
#include <cstdint>
#include <optional>
#include <string>

#include "cli/subcommand.hpp"
#include "cli/terminal.hpp"
#include "sim/engine.hpp"

namespace locksim {

enum class RunFormat { text, json, trace, mermaid, perfetto };

struct RunCommandOptions {
    std::string file;
    std::optional<std::uint64_t> seed;         // overrides the file's seed
    std::optional<std::string> design;         // run only this design
    std::optional<std::string> faults;         // JSON: these faults instead of the file's (and none drawn)
    std::optional<std::uint64_t> given_fault;  // draw the run given this fault generator strikes
    RunFormat format = RunFormat::text;
    ColorChoice color = ColorChoice::automatic;
    std::string program = "locksim";              // how the user invoked us, for the replay line
    std::optional<std::string> report_directory;  // also write the HTML report there
    std::uint64_t max_events = Engine::default_event_limit;
};

// The process exit code: 0 every expectation held, 1 one failed, 2 unusable input.
int run_command(const RunCommandOptions& options);

// `locksim run`, added to the program's command line; `program`: how the user invoked us.
Subcommand add_run_command(CLI::App& app, const std::string& program);

}  // namespace locksim
