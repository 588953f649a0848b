#pragma once
// What the tests of scenario files share: a shipped scenario's path and its run, a design
// found by name, and the one-line message the loader refuses a text with.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "checks/run_outcome.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim::testing {

// scenarios/NAME in the source tree.
inline std::string scenario_path(const std::string& name) {
    return std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/" + name;
}

// The design called `name` among the designs of a Scenario, a ScenarioOutcome or an
// Exploration.
template <class WithDesigns>
const auto& design_named(const WithDesigns& with_designs, const std::string& name) {
    for (const auto& design : with_designs.designs)
        if (design.name == name) return design;
    FAIL("no design " << name);
    throw;
}

// Every scenario file the repository ships, relative to scenarios/ ("examples/x.json"), in
// name order.
inline std::vector<std::string> shipped_scenario_files() {
    std::vector<std::string> files;
    for (const std::string folder : {"", "examples"}) {
        for (const auto& entry : std::filesystem::directory_iterator(scenario_path(folder))) {
            const std::string name = entry.path().filename().string();
            if (entry.is_regular_file() && entry.path().extension() == ".json" && name != "scenario.schema.json")
                files.push_back(folder.empty() ? name : folder + "/" + name);
        }
    }
    std::sort(files.begin(), files.end());
    return files;
}

// What the loader says of `text` as the file `file`: its error message, or "no error".
inline std::string error_of(const std::string& text, const std::string& file = "test.json") {
    try {
        parse_scenario(text, file, metric_names());
    } catch (const ScenarioError& error) {
        return error.what();
    }
    return "no error";
}

// The message with which the shipped scenario `file` refuses these faults given as
// `--faults` (a test failure if it accepts them).
inline std::string faults_refusal_of(const std::string& file, const std::string& faults) {
    Scenario scenario = load_scenario_file(scenario_path(file), metric_names());
    try {
        replace_faults(scenario, faults, "--faults");
    } catch (const ScenarioError& error) {
        return error.what();
    }
    FAIL("the faults were accepted: " << faults);
    return "";
}

// Whether `error` is one line that starts with the file's name (and a position) and names
// `expected`.
inline bool says(const std::string& error, const std::string& expected, const std::string& file = "test.json") {
    return error.starts_with(file + ":") && error.find(expected) != std::string::npos &&
           error.find('\n') == std::string::npos;
}

// A shipped scenario (a path relative to scenarios/) run under its own seed.
inline ScenarioOutcome run_shipped(const std::string& file) {
    const Scenario scenario = load_scenario_file(scenario_path(file), metric_names());
    return run_scenario(scenario, scenario.seed);
}

}  // namespace locksim::testing
