#pragma once
// The bash completion of locksim, written from the program's own command line: its
// commands, each command's options, the values an option takes when it names them
// (--format, --color), the designs of the scenario file on the line for --design, and
// scenario files (*.json) and folders where a command takes them. The package installs
// what `locksim bash-completion` prints.
#include <string>

namespace CLI {
class App;
}

namespace locksim {

// A bash script defining _locksim and registering it for `locksim` (complete -F).
std::string render_bash_completion(const CLI::App& program);

}  // namespace locksim
