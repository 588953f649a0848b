#pragma once
// Runs every design of a scenario under one seed and checks what each run shows.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checks/run_outcome.hpp"
#include "checks/verdict.hpp"
#include "models/world/world.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// A scenario file: *.json, but not the format's *.schema.json.
bool is_scenario_file(const std::filesystem::path& path);

// The files named, and every *.json below a directory named that is not itself a directory
// (a FIFO or a device found there is given to the loader, which refuses it), each
// directory's in sorted order. What cannot be used goes to `unusable` as one line each: a
// path that does not exist, a directory that cannot be listed.
struct UnusablePath {
    std::string path;
    std::string message;  // one line that starts with the path
};
std::vector<std::string> scenario_files(const std::vector<std::string>& paths, std::vector<UnusablePath>& unusable);

// The scenario in `file`, or nullopt after printing the one-line error to stderr.
std::optional<Scenario> load_scenario_or_report(const std::string& file);

// True when `design` is unset or names one of the scenario's designs; otherwise prints the
// one-line error listing the designs there are.
bool has_design_or_report(const Scenario& scenario, const std::optional<std::string>& design);

// One design's world run under a seed, its events checked as they were recorded; the
// trace keeps them unless `options.keep_trace` is false.
struct CheckedRun {
    Trace trace;
    RunSummary summary;
    RunMetrics metrics;
};
CheckedRun run_and_check(const WorldSpec& world, std::uint64_t seed, RunOptions options = {});

// The verdict (checks/verdict.hpp) on a run of the design: its violations, and which
// fail it. `charged_without_faults`: what its run without any fault charged, when made.
Verdict judge_design(const Design& design, const RunMetrics& metrics,
                     std::optional<std::int64_t> charged_without_faults = std::nullopt);

// Whether to judge a design's faults by running it again without them (checks/
// fault_effects.hpp): a run per fault of the scenario's own, and one with none. Sweeps,
// which run thousands of seeds, do not.
enum class FaultJudging { on, off };

// `only_design`: run just that design (the caller has checked it exists).
ScenarioOutcome run_scenario(const Scenario& scenario, std::uint64_t seed,
                             const std::optional<std::string>& only_design = std::nullopt, RunOptions options = {},
                             FaultJudging judging = FaultJudging::on);

}  // namespace locksim
