#pragma once
// One shard of an exploration (`explore FILE --shard i/n`), as the JSON `merge` reads: the
// provenance and shard index a sweep's shard has, what the exploration was asked for, and
// the outcomes of its block of the exploration's units (runners/explore_runner.hpp). The
// merge plans the exploration again from the file, which is cheap, and fills in the units.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks/exploration.hpp"
#include "checks/sweep_summary.hpp"

namespace locksim {

// What changes an exploration's results, besides the file and the build.
struct ExploreSettings {
    std::optional<std::string> design;
    std::uint64_t seed = 0;
    std::uint64_t event_limit = 0;
    bool prune = true;
};

struct ExploreShard {
    std::string scenario;
    std::string file;
    std::uint32_t shard = 1;  // from 1
    std::uint32_t shards = 1;
    SweepProvenance provenance;
    ExploreSettings settings;
    std::vector<std::string> designs;
    std::uint64_t total_units = 0;  // of the whole exploration
    std::uint64_t first_unit = 0;   // this shard's block: shard_block(0…total_units)
    std::vector<UnitOutcome> outcomes;
};

// `locksim explore FILE [--design D] [--seed S] [--no-prune] [--max-events N] [--shard i/n]`:
// the command that reproduces the results; --shard only when there is more than one.
std::string explore_command_line(const std::string& file, const ExploreSettings& settings, std::uint32_t shard,
                                 std::uint32_t shards);

nlohmann::ordered_json explore_shard_json(const ExploreShard& shard);
// One unit's outcome as explore_shard_json writes it.
nlohmann::ordered_json explore_outcome_json(const UnitOutcome& outcome);
// "explore" as explore_shard_json writes it.
nlohmann::ordered_json explore_settings_json(const ExploreSettings& settings, std::uint64_t total_units);
// Throws SweepError unless a shard read from `file` holds its index's block of the units.
void check_explore_block(const ExploreShard& shard, const std::string& file);
// What `merge` compares shards by, as a sweep summary without tallies: the same scenario
// bytes, build, designs, shard count, and settings (`SweepSummary::explore`).
SweepSummary shard_header(const ExploreShard& shard);

}  // namespace locksim
