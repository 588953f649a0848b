#include "checks/explore_shard.hpp"

#include <fmt/format.h>

#include <limits>

#include "checks/command_line.hpp"

namespace locksim {
namespace {

using Json = nlohmann::ordered_json;

Json settings_json(const ExploreSettings& settings, std::uint64_t total_units) {
    return Json{{"design", settings.design ? Json(*settings.design) : Json(nullptr)},
                {"seed", settings.seed},
                {"max_events", settings.event_limit},
                {"prune", settings.prune},
                {"units", total_units}};
}

// A placement's outcome is its violations; a start class's, its runs and its segments of
// ends as [from, to, violations] in nanoseconds (or of sizes, for a sized family).
Json outcome_json(const UnitOutcome& outcome) {
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

}  // namespace

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
    for (const auto& outcome : shard.outcomes) outcomes.push_back(outcome_json(outcome));
    // The shard comes first after the file, so a file cut short still says which it was.
    return Json{{"scenario", shard.scenario},
                {"file", shard.file},
                {"shard", {{"index", shard.shard}, {"of", shard.shards}}},
                {"provenance",
                 {{"scenario_sha256", shard.provenance.scenario_sha256},
                  {"locksim_version", shard.provenance.locksim_version},
                  {"commit", shard.provenance.commit},
                  {"command", shard.provenance.command}}},
                {"explore", settings_json(shard.settings, shard.total_units)},
                {"designs", shard.designs},
                {"units", {{"first", shard.first_unit}, {"outcomes", std::move(outcomes)}}}};
}

bool is_explore_shard(const Json& document) {
    return document.is_object() && document.contains("explore");
}

ExploreShard explore_shard_from_json(const Json& document, const std::string& file) {
    const auto fail = [&file](const std::string& what) {
        return SweepError(
            fmt::format("{}: not a locksim explore shard (written by explore --shard i/n): {}", file, what));
    };
    const auto whole = [&](const Json& value, const char* name, std::uint64_t max = UINT64_MAX) {
        if (!value.is_number_unsigned() || value.get<std::uint64_t>() > max)
            throw fail(fmt::format("{} is {}, not a whole number from 0 to {}", name, value.dump(), max));
        return value.get<std::uint64_t>();
    };
    const auto nanoseconds = [&](const Json& value) {
        if (!value.is_number_integer()) throw fail(fmt::format("an end or size is {}, not nanoseconds", value.dump()));
        return value.get<std::int64_t>();
    };
    const auto instant = [&](const Json& value) { return Instant{nanoseconds(value)}; };
    const auto duration = [&](const Json& value) { return Duration{nanoseconds(value)}; };
    ExploreShard shard;
    try {
        shard.scenario = document.at("scenario").get<std::string>();
        shard.file = document.at("file").get<std::string>();
        shard.shard = static_cast<std::uint32_t>(whole(document.at("shard").at("index"), "shard.index", max_shards));
        shard.shards = static_cast<std::uint32_t>(whole(document.at("shard").at("of"), "shard.of", max_shards));
        if (shard.shards == 0 || shard.shard == 0 || shard.shard > shard.shards)
            throw fail(fmt::format("shard {}/{} is not a shard index from 1 to its count", shard.shard, shard.shards));
        const auto& provenance = document.at("provenance");
        shard.provenance = SweepProvenance{
            provenance.at("scenario_sha256").get<std::string>(), provenance.at("locksim_version").get<std::string>(),
            provenance.at("commit").get<std::string>(), provenance.at("command").get<std::string>()};
        const auto& settings = document.at("explore");
        if (!settings.at("design").is_null()) shard.settings.design = settings.at("design").get<std::string>();
        shard.settings.seed = whole(settings.at("seed"), "explore.seed");
        shard.settings.event_limit = whole(settings.at("max_events"), "explore.max_events");
        shard.settings.prune = settings.at("prune").get<bool>();
        shard.total_units = whole(settings.at("units"), "explore.units");
        shard.designs = document.at("designs").get<std::vector<std::string>>();
        shard.first_unit = whole(document.at("units").at("first"), "units.first");
        for (const auto& outcome : document.at("units").at("outcomes")) {
            UnitOutcome unit;
            if (outcome.is_object()) {
                unit.runs = whole(outcome.at("runs"), "a start class's runs");
                if (outcome.contains("sizes")) {
                    for (const auto& size : outcome.at("sizes")) {
                        if (!size.is_array() || size.size() != 3) throw fail("a size is not [from, to, violations]");
                        unit.sizes.push_back(
                            SizeSegment{duration(size[0]), duration(size[1]),
                                        static_cast<std::uint32_t>(whole(size[2], "a size's violations", UINT32_MAX))});
                    }
                    if (unit.sizes.empty()) throw fail("a start class has no sizes");
                    shard.outcomes.push_back(std::move(unit));
                    continue;
                }
                for (const auto& end : outcome.at("ends")) {
                    if (!end.is_array() || end.size() != 3) throw fail("an end is not [from, to, violations]");
                    unit.segments.push_back(
                        EndSegment{instant(end[0]), instant(end[1]),
                                   static_cast<std::uint32_t>(whole(end[2], "an end's violations", UINT32_MAX))});
                }
                if (unit.segments.empty()) throw fail("a start class has no ends");
            } else {
                unit.violations = static_cast<std::uint32_t>(whole(outcome, "a placement's violations", UINT32_MAX));
            }
            shard.outcomes.push_back(std::move(unit));
        }
    } catch (const nlohmann::json::exception& error) {
        throw fail(error.what());
    }
    const SeedBlock block = shard_block(SeedBlock{0, shard.total_units}, shard.shard, shard.shards);
    if (block.first != shard.first_unit || block.count != shard.outcomes.size())
        throw fail(
            fmt::format("shard {}/{} holds units {} and {} more, but its block of {} is {} and {} more; rerun "
                        "it with {}",
                        shard.shard, shard.shards, shard.first_unit, shard.outcomes.size(), shard.total_units,
                        block.first, block.count, shard.provenance.command));
    return shard;
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
    header.explore = settings_json(shard.settings, shard.total_units).dump();
    return header;
}

}  // namespace locksim
