#pragma once
// The compact timeline under the table: one column per node in the order of the
// figures, one line per event with its true time. Messages and reads are left out and a
// run of refused acquire attempts is folded into one line, so the story fits a screen.
#include <string>

#include "checks/run_outcome.hpp"
#include "reports/text_style.hpp"

namespace locksim {

std::string render_compact_timeline(const DesignOutcome& design, const TextStyle& style);

}  // namespace locksim
