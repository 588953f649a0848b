#pragma once
// The JSON Schema's fault entries, printed from the families' declarations (their
// FaultEntry members and ExploreShape): a placed fault, a generator and an explore block's
// entry per family, and the lists that name every family. scenarios/scenario.schema.json
// holds a copy that scripts/update-schema-faults.py writes and a test checks.
#include <nlohmann/json.hpp>

namespace locksim {

// Each fragment by the JSON Pointer of its place in the schema.
nlohmann::ordered_json fault_schema_fragments();

}  // namespace locksim
