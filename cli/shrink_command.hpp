#pragma once
// `locksim shrink FILE --seed N --design D`: the smallest scenario file that still shows
// the violation of that run.
#include <cstdint>
#include <optional>
#include <string>

#include "cli/subcommand.hpp"
#include "sim/engine.hpp"

namespace locksim {

struct ShrinkCommandOptions {
    std::string file;
    std::optional<std::uint64_t> seed;         // default: the file's
    std::optional<std::string> design;         // default: the file's only design
    std::optional<std::string> faults;         // JSON: these faults instead of the file's
    std::optional<std::uint64_t> given_fault;  // the seed is one of a sweep --given-fault N
    std::optional<std::string> out;            // write the minimal file here instead of stdout
    std::string color = "auto";                // of what it says on stderr; the file never has any
    std::string program = "locksim";
    std::uint64_t max_events = Engine::default_event_limit;
};

// 0 a minimal file written, 2 nothing to shrink or unusable input.
int shrink_command(const ShrinkCommandOptions& options);

// `locksim shrink`, added to the program's command line; `program`: how the user invoked us.
Subcommand add_shrink_command(CLI::App& app, const std::string& program);

}  // namespace locksim
