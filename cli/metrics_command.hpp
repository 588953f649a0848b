#pragma once
// `locksim metrics`: every metric the checkers compute, as the metric table declares it
// (checks/metric_table.hpp): its name, what it counts, its unit and what it says about the
// lock. What a run's "expect" may name, what `--format json` writes under "metrics".
#include <string>

#include "cli/subcommand.hpp"

namespace locksim {

// `format`: "text" (for people), "markdown" (a table for the documentation), "json" (for
// scripts) or "schema" (the JSON Schema's lists, cli/metrics_schema.hpp).
int metrics_command(const std::string& format);

// `locksim metrics`, added to the program's command line.
Subcommand add_metrics_command(CLI::App& app);

}  // namespace locksim
