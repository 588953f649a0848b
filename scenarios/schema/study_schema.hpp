#pragma once
// Reads a scenario's "study" block (study_spec.hpp).
#include "scenarios/schema/json_reader.hpp"
#include "scenarios/schema/study_spec.hpp"

namespace locksim {

// The block's shape, and that each field has a place in `document`, the file as read, and
// overlaps no other; whether each value makes a usable scenario is for the loader to try
// (scenario_loader.cpp), by reading the file with that value set.
StudySpec read_study_block(const JsonReader& block, const Json& document);

}  // namespace locksim
