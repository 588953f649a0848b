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

bool read_seed(const CLI::App& command, const std::string& text, std::optional<std::uint64_t>& seed) {
    if (command.count("--seed") == 0) return true;
    seed = parse_whole_number(text);
    if (seed) return true;
    fmt::print(stderr, "{}\n", whole_number_error("--seed", text, 0, UINT64_MAX));
    return false;
}

}  // namespace locksim
