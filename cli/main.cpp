// locksim: a deterministic simulator of distributed locks. See README.md.
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "cli/build_info.hpp"
#include "cli/check_command.hpp"
#include "cli/command_failure.hpp"
#include "cli/explore_command.hpp"
#include "cli/kinds_command.hpp"
#include "cli/list_command.hpp"
#include "cli/metrics_command.hpp"
#include "cli/program_text.hpp"
#include "cli/report_command.hpp"
#include "cli/run_command.hpp"
#include "cli/self_description_commands.hpp"
#include "cli/shrink_command.hpp"
#include "cli/subcommand.hpp"
#include "cli/sweep_command.hpp"

int main(int argc, char** argv) {
    using namespace locksim;
    const std::string version = fmt::format("locksim {} (commit {})", locksim_version, build_commit);
    CLI::App app{fmt::format("{} — {}.\n{}", version, program_summary, program_description), "locksim"};
    app.set_version_flag("--version", version);
    // A usage error is one line, like every other refusal: CLI11's message, then where to
    // read more (its own hint takes a second line).
    app.failure_message([](const CLI::App* parsed, const CLI::Error& error) {
        std::string message = error.what();
        std::replace(message.begin(), message.end(), '\n', ' ');
        std::string command = "locksim";
        for (const CLI::App* sub = parsed; sub != nullptr;) {
            const auto chosen = sub->get_subcommands();
            sub = chosen.empty() ? nullptr : chosen.front();
            if (sub != nullptr) command += " " + sub->get_name();
        }
        return fmt::format("{}; run {} --help for more information\n", message, command);
    });
    app.require_subcommand(1);
    std::string footer;
    for (const ExitCode& exit : exit_codes)
        footer += fmt::format("{:<12}{}  {}\n", footer.empty() ? "Exit codes:" : "", exit.code, exit.meaning);
    app.footer(footer + "Example: locksim run scenarios/gc-pause-40s.json");

    // In the order the help lists them; man and bash-completion are hidden from it.
    const std::string program = argv[0];
    const Subcommand commands[] = {add_run_command(app, program),
                                   add_sweep_command(app, program),
                                   add_merge_command(app, program),
                                   add_list_command(app),
                                   add_kinds_command(app),
                                   add_metrics_command(app),
                                   add_check_command(app, program),
                                   add_explore_command(app, program),
                                   add_shrink_command(app, program),
                                   add_report_command(app, program),
                                   add_man_command(app),
                                   add_bash_completion_command(app)};

    // Bare `locksim`: the program's help, every command listed, as a mistake.
    if (argc == 1) {
        fmt::print(stderr, "{}", app.help());
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        const int code = app.exit(error);  // prints help, the version, or the error
        return code == 0 ? 0 : 2;
    }
    for (const Subcommand& command : commands) {
        if (!app.got_subcommand(command.app)) continue;
        try {
            return command.run();
        } catch (...) {
            return report_failure(std::current_exception(), command.file());
        }
    }
    return 2;
}
