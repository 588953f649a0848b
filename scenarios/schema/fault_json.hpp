#pragma once
// A fault written back as a scenario file writes it: what shrink leaves in the file it
// writes, and what a replay line passes to --faults.
#include "models/faults/fault.hpp"
#include "scenarios/schema/json_reader.hpp"

namespace locksim {

// {"pause": "server-1", "at": "6s", "for": "40s", "kind": "gc"}: the family's members in
// its own order; a role as {"role": "holder"}. A fault placed by an event is written with
// its time (what "when" said is the caller's to add).
Json fault_json(const Fault& fault);

}  // namespace locksim
