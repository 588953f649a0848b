#include "runners/scenario_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "checks/checkers.hpp"
#include "checks/metrics.hpp"
#include "checks/verdict.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {
namespace {

// The figures put the first server on the left, the lock store's nodes (or the pooler
// in front of the database) next to it, the other servers after them and the resources last.
std::vector<std::string> figure_lanes(const WorldSpec& world) {
    std::vector<std::string> lanes{world.servers.front()};
    lanes.insert(lanes.end(), world.store_nodes.begin(), world.store_nodes.end());
    if (!world.pooler_node.empty()) lanes.push_back(world.pooler_node);
    lanes.insert(lanes.end(), world.servers.begin() + 1, world.servers.end());
    lanes.push_back(world.provider_node);
    lanes.push_back(world.billing_node);
    return lanes;
}

// The design's world run again with other faults; `drawn_faults`: keep its generators.
Counterfactual run_with_faults(const Design& design, std::vector<Fault> faults, bool drawn_faults, std::uint64_t seed,
                               RunOptions options) {
    WorldSpec world = design.world;
    world.faults = std::move(faults);
    if (!drawn_faults) world.fault_generators.clear();
    options.trace_messages = false;
    CheckedRun run = run_and_check(world, seed, options);
    return Counterfactual{std::move(run.trace), std::move(run.metrics)};
}

// The file's expectations judged on a run of the design, then the verdict's rule
// (checks/verdict.hpp), whose failures join them.
struct JudgedRun {
    std::vector<ExpectationResult> expectations;
    Verdict verdict;

    bool held() const {
        return std::all_of(expectations.begin(), expectations.end(), [](const ExpectationResult& e) { return e.held; });
    }
};
JudgedRun judge_design_run(const Design& design, const RunMetrics& metrics, const Trace& trace,
                           std::optional<std::int64_t> charged_without_faults) {
    JudgedRun judged{evaluate(design.expectations, metrics, trace),
                     judge_design(design, metrics, charged_without_faults)};
    for (auto& failure : verdict_failures(judged.verdict, metrics, design.world.vocabulary))
        judged.expectations.push_back(std::move(failure));
    return judged;
}

// Which of the design's own faults struck in the run: fault.struck names each by its place.
std::vector<bool> faults_that_struck(const Trace& trace, std::size_t faults) {
    std::vector<bool> struck(faults, false);
    for (const TraceEvent& event : trace.events())
        if (event.kind == trace_kind::fault_struck && event.has("fault"))
            struck.at(static_cast<std::size_t>(event.integer("fault"))) = true;
    return struck;
}

// Each of the design's own faults left out in turn, and all of them.
std::optional<FaultJudgement> judge_design_faults(const Design& design, const Trace& trace, const RunMetrics& metrics,
                                                  std::uint64_t seed, RunOptions options) {
    const auto& faults = design.world.faults;
    if (faults.empty() && design.world.fault_generators.empty()) return std::nullopt;
    const Counterfactual without_any = run_with_faults(design, {}, false, seed, options);
    const bool held_without_faults =
        judge_design_run(design, without_any.metrics, without_any.trace, std::nullopt).held();
    const RunStory story = story_of(trace, metrics);
    const std::vector<bool> struck = faults_that_struck(trace, faults.size());
    std::vector<Difference> without_each;
    for (std::size_t i = 0; i < faults.size(); ++i) {
        // A fault that never struck (the run ended before its time or its trigger) changed
        // nothing: the run without it is this run, event for event, since what it left in the
        // queue never fired. Not running it again keeps a file of thousands of faults, most
        // never reached, from costing faults x events.
        if (!struck[i]) {
            without_each.emplace_back();
            continue;
        }
        // One fault and nothing drawn: leaving it out is the run without any, already run.
        if (faults.size() == 1 && design.world.fault_generators.empty()) {
            without_each.push_back(difference(story, without_any, "without it"));
            continue;
        }
        std::vector<Fault> others = faults;
        others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
        without_each.push_back(
            difference(story, run_with_faults(design, std::move(others), true, seed, options), "without it"));
    }
    std::vector<std::optional<Instant>> placed_at;
    for (const auto& fault : faults)
        placed_at.push_back(
            std::visit([](const auto& f) { return f.when ? std::nullopt : std::optional<Instant>(f.at); }, fault));
    return judge_faults(trace, story, placed_at, std::move(without_each), without_any, held_without_faults);
}

}  // namespace

Verdict judge_design(const Design& design, const RunMetrics& metrics,
                     std::optional<std::int64_t> charged_without_faults) {
    return judge_run(
        metrics, design.expectations,
        VerdictContext{design.purpose, design.world.job.kind != JobKind::index_rebuild, charged_without_faults});
}

CheckedRun run_and_check(const WorldSpec& world, std::uint64_t seed, RunOptions options) {
    // A kept trace is checked after the run, in one pass over it: checkers called at every
    // event share the instruction cache with the models' code, and a traced run took 13 %
    // longer so (callgrind: half again as many instruction-cache misses, for the same
    // instructions). A run that keeps no trace checks each event as it is recorded.
    RunChecks checks;
    if (!options.keep_trace) options.reader = &checks;
    RunResult run = run_world(world, seed, options);
    RunMetrics metrics = options.keep_trace ? check_trace(run.trace, run.summary.ended_at)
                                            : checks.finish(run.trace, run.summary.ended_at);
    return CheckedRun{std::move(run.trace), run.summary, std::move(metrics)};
}

bool is_scenario_file(const std::filesystem::path& path) {
    const std::string name = path.filename().string();
    return path.extension() == ".json" && !name.ends_with(".schema.json");  // the JSON Schema is no scenario
}

std::vector<std::string> scenario_files(const std::vector<std::string>& paths, std::vector<UnusablePath>& unusable) {
    std::vector<std::string> files;
    for (const auto& path : paths) {
        std::error_code error;
        if (std::filesystem::is_directory(path, error)) {
            std::vector<std::string> found;
            std::filesystem::recursive_directory_iterator entry(path, error), end;
            std::error_code resolve_error;
            std::filesystem::path inside = std::filesystem::weakly_canonical(path, resolve_error);
            if (inside.filename().empty()) inside = inside.parent_path();  // "dir/"
            for (; !error && entry != end; entry.increment(error)) {
                std::error_code kind_error;
                if (entry->is_directory(kind_error) || !is_scenario_file(entry->path())) continue;
                // A link that leads out of the folder is not the folder's file: reading it
                // would quote whatever it points at in an error.
                if (entry->is_symlink(kind_error)) {
                    const std::filesystem::path target = std::filesystem::weakly_canonical(entry->path(), kind_error);
                    const auto [mismatch, _] =
                        std::mismatch(inside.begin(), inside.end(), target.begin(), target.end());
                    if (kind_error || resolve_error || mismatch != inside.end()) {
                        unusable.push_back({entry->path().string(),
                                            fmt::format("{}: a symbolic link to a file outside {} ({}); locksim reads "
                                                        "only what the folder holds: name that file itself",
                                                        entry->path().string(), path, target.string())});
                        continue;
                    }
                }
                found.push_back(entry->path().string());
            }
            if (error) {
                unusable.push_back({path, fmt::format("{}: cannot list the directory: {}", path, error.message())});
                continue;
            }
            std::sort(found.begin(), found.end());
            files.insert(files.end(), found.begin(), found.end());
        } else if (std::filesystem::exists(path, error)) {
            files.push_back(path);
        } else {
            unusable.push_back({path, fmt::format("{}: no such file or directory", path)});
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
                             const std::optional<std::string>& only_design, RunOptions options, FaultJudging judging) {
    ScenarioOutcome outcome{scenario.file, scenario.name, scenario.description, scenario.lesson, seed, {}};
    for (const auto& design : scenario.designs) {
        if (only_design && design.name != *only_design) continue;
        CheckedRun run = [&] {
            try {
                return run_and_check(design.world, seed, options);
            } catch (const RunawayRun& runaway) {
                throw RunawayRun(fmt::format("design \"{}\": {}", design.name, runaway.what()));
            }
        }();
        RunMetrics metrics = std::move(run.metrics);
        auto faults =
            judging == FaultJudging::on ? judge_design_faults(design, run.trace, metrics, seed, options) : std::nullopt;
        JudgedRun judged = judge_design_run(design, metrics, run.trace,
                                            faults ? std::optional(faults->charged_without_faults) : std::nullopt);
        outcome.designs.push_back(DesignOutcome{design.name, design.purpose, figure_lanes(design.world),
                                                std::move(run.trace), run.summary, std::move(metrics),
                                                std::move(judged.expectations), std::move(faults), judged.verdict});
    }
    return outcome;
}

}  // namespace locksim
