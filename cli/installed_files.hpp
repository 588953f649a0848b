#pragma once
// Where the package installs what the program reads or names — the scenario library, the
// JSON Schema, the manual — and which library `list` and `check` read when given no path:
// the checkout's scenarios/ when run in a checkout (or any folder with a scenarios/ folder
// of its own), otherwise the installed one. The places are fixed when the program is built
// (CMake's install folders under CMAKE_INSTALL_PREFIX, /usr for the .deb).
#include <string>
#include <vector>

namespace locksim {

// Where the package puts its data: the scenario library and the JSON Schema.
std::string installed_data_dir();          // /usr/share/locksim
std::string installed_scenario_library();  // /usr/share/locksim/scenarios
std::string installed_schema();            // /usr/share/locksim/scenario.schema.json
std::string installed_doc_dir();           // /usr/share/doc/locksim: the README and docs/

// The paths a command reads: those given, or when none is given {"scenarios"} when the
// current folder has one, else {installed_scenario_library()}, said on stderr (a run far
// from a checkout should not leave anyone guessing which files passed).
std::vector<std::string> scenario_paths_or_library(const std::vector<std::string>& given);

// The rule above in words, for a PATH option's help: "(default: …)".
std::string default_scenario_paths_help();

}  // namespace locksim
