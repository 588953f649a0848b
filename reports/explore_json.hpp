#pragma once
// `locksim explore --format json`: the contract a tool can check without trusting
// explore. Every window names its first and last violating placement and the safe ones
// beside it as fault objects written exactly as a scenario's "faults" takes them.
#include <nlohmann/json.hpp>

#include "checks/exploration.hpp"

namespace locksim {

// `every_placement`: also list each placement tried, with its outcome.
nlohmann::ordered_json explore_json(const Exploration& exploration, bool every_placement);

}  // namespace locksim
