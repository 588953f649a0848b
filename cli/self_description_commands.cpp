#include "cli/self_description_commands.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/bash_completion.hpp"
#include "cli/man_page.hpp"

namespace locksim {

Subcommand add_man_command(CLI::App& program) {
    CLI::App* man = program.add_subcommand("man", "Print the man page, locksim(1), in roff")->group("");
    return Subcommand{.app = man, .run = [&program] {
                          fmt::print("{}", render_man_page(program));
                          return 0;
                      }};
}

Subcommand add_bash_completion_command(CLI::App& program) {
    CLI::App* completion =
        program.add_subcommand("bash-completion", "Print the bash completion script of locksim")->group("");
    return Subcommand{.app = completion, .run = [&program] {
                          fmt::print("{}", render_bash_completion(program));
                          return 0;
                      }};
}

}  // namespace locksim
