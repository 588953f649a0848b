#pragma once
// `locksim run --format json`: one document per run, shape documented in
// docs/outputs.md and kept stable, because CI jobs and later tools read it.
#include <nlohmann/json.hpp>

#include <string>

#include "checks/run_outcome.hpp"

namespace locksim {

nlohmann::ordered_json result_json(const ScenarioOutcome& outcome);
// Each expectation with what was found: {"metric", "expected", "actual", "implied", "held"}.
nlohmann::ordered_json expectations_json(const std::vector<ExpectationResult>& results);
// The document followed by a newline, pretty-printed with two spaces.
std::string render_result_json(const ScenarioOutcome& outcome);

}  // namespace locksim
