#include "checks/explore_shard.hpp"

#include <fmt/format.h>

#include <limits>

#include "checks/command_line.hpp"

namespace locksim {

using Json = nlohmann::ordered_json;

Json explore_settings_json(const ExploreSettings& settings, std::uint64_t total_units) {
    return Json{{"design", settings.design ? Json(*settings.design) : Json(nullptr)},
                {"seed", settings.seed},
                {"max_events", settings.event_limit},
                {"prune", settings.prune},
                {"units", total_units}};
}

// A placement's outcome is its violations; a start class's, its runs and its segments of
// ends as [from, to, violations] in nanoseconds (or of sizes, for a sized family).
Json explore_outcome_json(const UnitOutcome& outcome) {
    if (!outcome.sizes.empty()) {
        Json sizes = Json::array();
        for (const auto& segment : outcome.sizes)
            sizes.push_back(Json::array({segment.from.ns, segment.to.ns, segment.violations}));
        return Json{{"runs", outcome.runs}, {"sizes", std::move(sizes)}};
    }
    if (outcome.segments.empty()) return outcome.violations;
    Json ends = Json::array();
    for (const auto& segment : outcome.segments)
        ends.push_back(Json::array({segment.from.ns, segment.to.ns, segment.violations}));
    return Json{{"runs", outcome.runs}, {"ends", std::move(ends)}};
}

std::string explore_command_line(const std::string& file, const ExploreSettings& settings, std::uint32_t shard,
                                 std::uint32_t shards) {
    std::string command = "locksim explore " + shell_quoted(file);
    if (settings.design) command += " --design " + shell_quoted(*settings.design);
    command += fmt::format(" --seed {}", settings.seed);
    if (!settings.prune) command += " --no-prune";
    if (settings.event_limit != Engine::default_event_limit)
        command += fmt::format(" --max-events {}", settings.event_limit);
    if (shards > 1) command += fmt::format(" --shard {}/{}", shard, shards);
    return command;
}

Json explore_shard_json(const ExploreShard& shard) {
    Json outcomes = Json::array();
    for (const auto& outcome : shard.outcomes) outcomes.push_back(explore_outcome_json(outcome));
    // The shard comes first after the file, so a file cut short still says which it was.
    return Json{{"scenario", shard.scenario},
                {"file", shard.file},
                {"shard", {{"index", shard.shard}, {"of", shard.shards}}},
                {"provenance", provenance_json(shard.provenance)},
                {"explore", explore_settings_json(shard.settings, shard.total_units)},
                {"designs", shard.designs},
                {"units", {{"first", shard.first_unit}, {"outcomes", std::move(outcomes)}}}};
}

void check_explore_block(const ExploreShard& shard, const std::string& file) {
    const std::string command = explore_command_line(shard.file, shard.settings, shard.shard, shard.shards);
    if (shard.provenance.command != command)
        throw SweepError(fmt::format("{}: provenance.command is {}, not the command of its file and settings, {}", file,
                                     shard.provenance.command, command));
    if (shard.settings.design && shard.designs != std::vector<std::string>{*shard.settings.design})
        throw SweepError(fmt::format("{}: it explored only the design {} (explore.design), yet lists others", file,
                                     *shard.settings.design));
    const SeedBlock block = shard_block(SeedBlock{0, shard.total_units}, shard.shard, shard.shards);
    if (block.first != shard.first_unit || block.count != shard.outcomes.size())
        throw SweepError(
            fmt::format("{}: not a locksim explore shard (written by explore --shard i/n): shard {}/{} holds units {} "
                        "and {} more, but its block of {} is {} and {} more; rerun it with {}",
                        file, shard.shard, shard.shards, shard.first_unit, shard.outcomes.size(), shard.total_units,
                        block.first, block.count, shard.provenance.command));
}

SweepSummary shard_header(const ExploreShard& shard) {
    SweepSummary header;
    header.scenario = shard.scenario;
    header.file = shard.file;
    header.seeds = SeedBlock{shard.settings.seed, 0};
    header.covered = header.seeds;
    header.shard = shard.shard;
    header.shards = shard.shards;
    header.provenance = shard.provenance;
    for (const auto& name : shard.designs) header.designs.push_back(DesignTally{name});
    header.explore = explore_settings_json(shard.settings, shard.total_units).dump();
    return header;
}

}  // namespace locksim
