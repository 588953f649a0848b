#pragma once
// The side-by-side table of designs that `locksim run` prints first.
#include <string>
#include <vector>

#include "checks/metric_table.hpp"
#include "checks/run_outcome.hpp"
#include "reports/text_style.hpp"

namespace locksim {

std::string render_summary_table(const ScenarioOutcome& outcome, const TextStyle& style);

// The metrics every comparison of designs shows, each in a cell of its own making: the
// money (with the customers), the holders (with how long), the fence at work.
inline constexpr Metric always_compared[] = {Metric::double_charges, Metric::overlapping_holders,
                                             Metric::stale_writes_rejected};

// Metrics the scenario's expectations name beyond always_compared, in the table's order:
// the herd-effect file gets its wake-ups column.
std::vector<Metric> extra_columns(const ScenarioOutcome& outcome);

// One decimal place of seconds, "15.2s": the table's precision.
std::string format_tenths(Duration d);

}  // namespace locksim
