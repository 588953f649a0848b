#pragma once
// `locksim sweep FILE --seeds N` and `locksim merge SHARD…`.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "sim/engine.hpp"

namespace locksim {

struct SweepCommandOptions {
    std::string file;
    std::uint64_t seeds = 0;
    std::uint64_t start = 1;
    unsigned jobs = 0;  // 0: every core
    std::string format = "text";
    std::optional<std::string> shard;  // "i/n"
    std::string color = "auto";
    std::string program = "locksim";
    std::uint64_t max_events = Engine::default_event_limit;
};

int sweep_command(const SweepCommandOptions& options);

struct MergeCommandOptions {
    std::vector<std::string> files;
    std::string format = "text";
    std::string color = "auto";
    std::string program = "locksim";
};

int merge_command(const MergeCommandOptions& options);

}  // namespace locksim
