#pragma once
// Reads a scenario's "explore" block.
#include <string>
#include <vector>

#include "scenarios/schema/explore_spec.hpp"
#include "scenarios/schema/json_reader.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// Targets must be nodes of every design, since the same placements are tried in each;
// "servers" stands for the job servers they all have; "expect" names designs.
ExploreSpec read_explore(const JsonReader& block, const std::vector<Design>& designs);

// A scenario's "sweep" block: {"seeds": 2000, "start": 1, "expect": {"design": {...}}}.
SweepSpec read_sweep_block(const JsonReader& block, const std::vector<Design>& designs);

// "40s", "-40s" (when `signed_values`), "ttl", "ttl+1ms", "ttl-1ms", "ttl/3".
SizeExpression read_size(const JsonReader& field, bool signed_values);

}  // namespace locksim
