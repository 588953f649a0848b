#pragma once
// The side-by-side table of designs that `locksim run` prints first.
#include <string>

#include "reports/run_outcome.hpp"
#include "reports/text_style.hpp"

namespace locksim {

std::string render_summary_table(const ScenarioOutcome& outcome, const TextStyle& style);

// One decimal place of seconds, "15.2s": the table's precision.
std::string format_tenths(Duration d);

}  // namespace locksim
