#pragma once
// Why no fault of a design reached the lock in a sweep of it (checks/sweep_summary.hpp's
// describe_vacuous says that it did not), as far as the scenario file tells.
#include <string>

#include "scenarios/schema/scenario.hpp"

namespace locksim {

// "; fault_generators/0's window ends at 61.000s and the job starts at 7200.000s", "; the
// design has no faults, placed or drawn: …", or where to aim them; "" for a design the
// scenario does not have.
std::string why_no_fault_reached(const Scenario& scenario, const std::string& design);

}  // namespace locksim
