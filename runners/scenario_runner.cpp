#include "runners/scenario_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "models/world/world.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {
namespace {

// The seed's figures put the first server on the left, the lock store's nodes next to
// it, the other servers after them and the resources last.
std::vector<std::string> figure_lanes(const WorldSpec& world) {
    std::vector<std::string> lanes{world.servers.front()};
    lanes.insert(lanes.end(), world.store_nodes.begin(), world.store_nodes.end());
    lanes.insert(lanes.end(), world.servers.begin() + 1, world.servers.end());
    lanes.push_back(world.provider_node);
    lanes.push_back(world.billing_node);
    return lanes;
}

}  // namespace

bool is_scenario_file(const std::filesystem::path& path) {
    const std::string name = path.filename().string();
    return path.extension() == ".json" && !name.ends_with(".schema.json");  // the JSON Schema is no scenario
}

std::vector<std::string> scenario_files(const std::vector<std::string>& paths, std::vector<std::string>& missing) {
    std::vector<std::string> files;
    for (const auto& path : paths) {
        std::error_code error;
        if (std::filesystem::is_directory(path, error)) {
            std::vector<std::string> found;
            for (const auto& entry : std::filesystem::recursive_directory_iterator(path, error))
                if (entry.is_regular_file() && is_scenario_file(entry.path())) found.push_back(entry.path().string());
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (std::filesystem::exists(path, error)) {
            files.push_back(path);
        } else {
            missing.push_back(path);
        }
    }
    return files;
}

std::optional<Scenario> load_scenario_or_report(const std::string& file) {
    try {
        return load_scenario_file(file, metric_names());
    } catch (const ScenarioError& error) {
        fmt::print(stderr, "{}\n", error.what());
        return std::nullopt;
    }
}

bool has_design_or_report(const Scenario& scenario, const std::optional<std::string>& design) {
    if (!design) return true;
    std::vector<std::string> names;
    for (const auto& d : scenario.designs) names.push_back(d.name);
    if (std::find(names.begin(), names.end(), *design) != names.end()) return true;
    fmt::print(stderr, "{}: --design: no design named \"{}\"; the designs are {}\n", scenario.file, *design,
               fmt::join(names, ", "));
    return false;
}

ScenarioOutcome run_scenario(const Scenario& scenario, std::uint64_t seed,
                             const std::optional<std::string>& only_design, RunOptions options) {
    ScenarioOutcome outcome{scenario.file, scenario.name, scenario.description, scenario.lesson, seed, {}};
    for (const auto& design : scenario.designs) {
        if (only_design && design.name != *only_design) continue;
        RunResult run = [&] {
            try {
                return run_world(design.world, seed, options);
            } catch (const RunawayRun& runaway) {
                throw RunawayRun(fmt::format("design \"{}\": {}", design.name, runaway.what()));
            }
        }();
        RunMetrics metrics = check_trace(run.trace, run.summary.ended_at);
        auto expectations = evaluate(design.expectations, metrics);
        outcome.designs.push_back(DesignOutcome{design.name, design.purpose, figure_lanes(design.world),
                                                std::move(run.trace), run.summary, std::move(metrics),
                                                std::move(expectations)});
    }
    return outcome;
}

}  // namespace locksim
