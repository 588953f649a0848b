#pragma once
// `locksim run --format trace`: every event of every design with its true time, node,
// the node's clock readings, kind and fields. Times are integer nanoseconds.
#include <nlohmann/json.hpp>

#include <string>

#include "checks/run_outcome.hpp"

namespace locksim {

nlohmann::ordered_json trace_json(const Trace& trace);
std::string render_trace_json(const ScenarioOutcome& outcome);

}  // namespace locksim
