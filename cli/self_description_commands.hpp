#pragma once
// `locksim man` and `locksim bash-completion`: the man page and the bash completion,
// written from the program's own command line for the package to install (the build
// writes them next to the program). Hidden: --help does not list them, and neither do
// the page and the completion they write.
#include "cli/subcommand.hpp"

namespace locksim {

// `program`: the whole command line, read when the command runs, once every command is on it.
Subcommand add_man_command(CLI::App& program);
Subcommand add_bash_completion_command(CLI::App& program);

}  // namespace locksim
