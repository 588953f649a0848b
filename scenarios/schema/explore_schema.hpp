#pragma once
// Reads a scenario's "explore" block.
#include <string>
#include <vector>

#include "scenarios/schema/explore_spec.hpp"
#include "scenarios/schema/json_reader.hpp"

namespace locksim {

// `nodes`: the nodes every design has; `servers` stands for the job servers in a target
// list; `designs`: the names "expect" may use.
ExploreSpec read_explore(const JsonReader& block, const std::vector<std::string>& nodes,
                         const std::vector<std::string>& servers, const std::vector<std::string>& designs);

// A scenario's "sweep" block: {"seeds": 2000, "start": 1, "expect": {"design": {...}}}.
SweepSpec read_sweep_block(const JsonReader& block, const std::vector<std::string>& designs);

// "40s", "-40s" (when `signed_values`), "ttl", "ttl+1ms", "ttl-1ms", "ttl/3".
SizeExpression read_size(const JsonReader& field, bool signed_values);

}  // namespace locksim
