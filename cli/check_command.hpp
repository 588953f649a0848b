#pragma once
// `locksim check PATH…`: every scenario's expectations, for CI.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "cli/subcommand.hpp"
#include "sim/engine.hpp"

namespace locksim {

struct CheckCommandOptions {
    std::vector<std::string> paths;
    std::optional<std::uint64_t> seed;  // overrides every file's seed
    std::optional<std::string> junit;   // where to write JUnit XML
    std::string color = "auto";
    std::string program = "locksim";  // for the replay commands in failure messages
    unsigned jobs = 0;                // threads for explore blocks; 0: every usable CPU
    std::uint64_t max_events = Engine::default_event_limit;
    // A design whose expectations hold but whose faults were all inert fails, rather than
    // passing with a warning: its pass says nothing about the faults.
    bool refuse_inert = false;
};

// 0 every expectation held, 1 one failed, 2 a file could not be used.
int check_command(const CheckCommandOptions& options);

// `locksim check`, added to the program's command line; `program`: how the user invoked us.
Subcommand add_check_command(CLI::App& app, const std::string& program);

}  // namespace locksim
