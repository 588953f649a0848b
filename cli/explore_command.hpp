#pragma once
// `locksim explore FILE`: every fault of the file's "explore" block at every point where
// it can strike, per design; the windows that violate, and how to replay each.
#include <cstdint>
#include <optional>
#include <string>

#include "cli/subcommand.hpp"
#include "scenarios/schema/scenario.hpp"
#include "sim/engine.hpp"

namespace locksim {

struct ExploreCommandOptions {
    std::string file;
    std::optional<std::string> design;
    std::optional<std::uint64_t> seed;  // instead of the file's
    unsigned jobs = 0;                  // 0: every CPU this process may use
    std::string format = "text";
    bool placements = false;  // json: every placement tried
    bool prune = true;        // false: run every placement, even one equivalent to another
    std::optional<std::string> report_directory;
    std::string color = "auto";
    std::string program = "locksim";
    std::uint64_t max_events = Engine::default_event_limit;
    std::optional<std::string> shard;   // "3/8": run one block of the units, write JSON for merge
    std::optional<std::string> output;  // write the result to this file, whole or not at all
};

// 0 every explore expectation held, 1 one failed, 2 unusable input.
int explore_command(const ExploreCommandOptions& options);

// The vulnerability map of `scenario` (which has an "explore" block) explored under `seed`
// on `threads` threads, every design: the page `explore FILE --report DIR` writes.
std::string vulnerability_map_page(const Scenario& scenario, std::uint64_t seed, unsigned threads,
                                   std::uint64_t event_limit);

// `locksim merge` of explore shards (the first of `files` is one): the output `locksim
// explore FILE` gives, from the file (which must still be the one explored) and the
// shards' outcomes. Exit codes as explore's.
struct ShardFiles;
struct MergeCommandOptions;
int merge_exploration(const ShardFiles& files, const MergeCommandOptions& options);

// `locksim explore`, added to the program's command line; `program`: how the user invoked us.
Subcommand add_explore_command(CLI::App& app, const std::string& program);

}  // namespace locksim
