#pragma once
// A command as main meets it. Each command's file adds it to the program's command line,
// its options and their help (add_run_command in run_command.cpp, …); once the line is
// parsed, main runs the one chosen and maps what it throws to an exit code, once for all
// (command_failure.hpp). What the line fills (the command's options, and words such as
// --format read once it is parsed) lives in one object that the command's closures share.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace CLI {
class App;
}

namespace locksim {

struct Subcommand {
    CLI::App* app = nullptr;  // the command on the line: main asks whether it was chosen
    // Runs the command on what was parsed: its exit code (0 every expectation held, 1 one
    // failed, 2 unusable input or arguments).
    std::function<int()> run;
    // The scenario file it reads, named before messages that do not name it; empty for a
    // command that reads several files or none.
    std::function<std::string_view()> file = [] { return std::string_view(); };
};

// What several commands take alike.

// --max-events: the documented limit a runaway world stops at (exit 2), raised for a run
// that is meant to be long. Every command that runs scenarios takes it, as its last option.
void add_event_limit(CLI::App& command, std::uint64_t& limit);

// --color: colour on a terminal unless NO_COLOR is set. Every command that prints takes it.
void add_color(CLI::App& command, std::string& color);

}  // namespace locksim
