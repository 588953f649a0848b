#pragma once
// `locksim list [PATH…]`: the scenario library, in the course's order.
#include <string>
#include <vector>

#include "cli/subcommand.hpp"

namespace locksim {

// 0, or 2 if a path or file could not be used (the others are still listed).
// `format`: "text" (a table for people) or "json" (an array, for scripts).
// `color`: "auto", "always" or "never", as every command that prints takes it.
int list_command(const std::vector<std::string>& paths, const std::string& format, const std::string& color = "auto");

// `locksim list`, added to the program's command line.
Subcommand add_list_command(CLI::App& app);

}  // namespace locksim
