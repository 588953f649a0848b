#pragma once
// The side-by-side table of designs that `locksim run` prints first.
#include <string>

#include <vector>
#include "models/vocabulary.hpp"

#include "checks/run_outcome.hpp"
#include "reports/text_style.hpp"

namespace locksim {

std::string render_summary_table(const ScenarioOutcome& outcome, const TextStyle& style);

// Metrics the scenario's expectations name, beyond the three every table shows
// (double_charges, overlapping_holders, stale_writes_rejected), in the order of
// metric_names(): the herd-effect file gets its wake-ups column.
std::vector<std::string> extra_columns(const ScenarioOutcome& outcome);

// "double_charges" → "double charges", in the scenario's words: "double emails".
std::string header_of(std::string metric, const Vocabulary& words = {});

// One decimal place of seconds, "15.2s": the table's precision.
std::string format_tenths(Duration d);

}  // namespace locksim
