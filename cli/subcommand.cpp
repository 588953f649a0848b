#include "cli/subcommand.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/whole_number.hpp"
#include "sim/engine.hpp"

namespace locksim {

void add_event_limit(CLI::App& command, std::uint64_t& limit) {
    add_whole_number(command, "--max-events", limit,
                     fmt::format("Stop a run that handles more events than this, with exit 2 (default {})",
                                 Engine::default_event_limit),
                     1);
}

void add_color(CLI::App& command, std::string& color) {
    command.add_option("--color", color, "auto (default): on a terminal unless NO_COLOR is set; always; never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
}

}  // namespace locksim
