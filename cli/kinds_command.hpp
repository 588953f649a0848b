#pragma once
// `locksim kinds`: the trace's vocabulary, every kind of event with its fields and their
// types, as the code declares it (sim/trace_schema.hpp). It is what a fault's "when" may
// name and what `--format trace` writes; docs/outputs.md's table of kinds is its Markdown.
#include <string>

#include "cli/subcommand.hpp"

namespace locksim {

// `format`: "text" (for people), "markdown" (docs/outputs.md's table) or "json" (for scripts).
int kinds_command(const std::string& format);

// `locksim kinds`, added to the program's command line.
Subcommand add_kinds_command(CLI::App& app);

}  // namespace locksim
