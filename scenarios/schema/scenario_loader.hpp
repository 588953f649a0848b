#pragma once
// Reads a scenario file and checks every field (the format is described in
// docs/scenario-format.md). Anything unusable throws ScenarioError with a one-line message
// naming the file, line:column, the field as a JSON pointer and what was expected.
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/schema/json_reader.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// One value of a parameter study (`sweep --vary lock.ttl=5s,10s`): the file's value at
// `pointer` ("/lock/ttl") replaced by `value` before the scenario is read, so every check
// applies to it and an error points at the field it replaces. A design that overrides the
// field keeps its own value.
struct ScenarioVariation {
    std::string pointer;
    Json value;
};

// The bytes of the scenario file at `path`, read as every input is (input_file.hpp): a
// regular file of at most 1 MiB without NUL bytes. Throws ScenarioError naming the file.
std::string read_scenario_text(const std::string& path);

// `metrics`: the metric names an expectation may name (the checkers' vocabulary).
Scenario load_scenario_file(const std::string& path, const std::vector<std::string>& metrics,
                            const std::vector<ScenarioVariation>& variations = {});
Scenario parse_scenario(std::string_view text, const std::string& file, const std::vector<std::string>& metrics,
                        const std::vector<ScenarioVariation>& variations = {});

// `locksim run --faults '[…]'`: every design's faults become this list, written as in a
// scenario's "faults", and nothing is drawn from "fault_generators". Errors name `origin`.
void replace_faults(Scenario& scenario, std::string_view faults_text, const std::string& origin);

}  // namespace locksim
