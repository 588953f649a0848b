// locksim: a deterministic simulator of distributed locks. See README.md.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "reports/cli/run_command.hpp"

#ifndef LOCKSIM_VERSION
#define LOCKSIM_VERSION "unknown"
#endif

int main(int argc, char** argv) {
    using namespace locksim;
    CLI::App app{"locksim " LOCKSIM_VERSION
                 " — a deterministic simulator of distributed locks under pauses, clock jumps and delays.\n"
                 "Runs every design of a scenario under the same seed and faults, and counts double charges,\n"
                 "overlapping holders and stale writes. Same file and seed, same bytes out.",
                 "locksim"};
    app.set_version_flag("--version", "locksim " LOCKSIM_VERSION);
    app.require_subcommand(1);
    app.footer("Exit codes: 0 every expectation held, 1 an expectation failed, 2 unusable input or arguments.\n"
               "Example: locksim run scenarios/gc-pause-40s.json");

    RunOptions run;
    run.program = argv[0];
    CLI::App* run_app = app.add_subcommand("run", "Run a scenario file and print what went wrong in each design");
    run_app->add_option("FILE", run.file, "Scenario file (JSON), e.g. scenarios/gc-pause-40s.json")->required();
    run_app->add_option("--seed", run.seed, "Seed for this run instead of the file's (replays a run exactly)");
    run_app->add_option("--design", run.design, "Run only the design with this name");
    std::string format = "text";
    run_app->add_option("--format", format,
                        "text: table and timeline (default); json: metrics and expectations; trace: every event")
        ->check(CLI::IsMember({"text", "json", "trace"}));
    std::string color = "auto";
    run_app->add_option("--color", color, "auto (default): on a terminal unless NO_COLOR is set; always; never")
        ->check(CLI::IsMember({"auto", "always", "never"}));
    run_app->footer("Example: locksim run scenarios/gc-pause-40s.json --seed 7 --format json");

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
    run.format = format == "json" ? RunFormat::json : format == "trace" ? RunFormat::trace : RunFormat::text;
    run.color = color == "always" ? ColorChoice::always : color == "never" ? ColorChoice::never : ColorChoice::automatic;

    try {
        if (app.got_subcommand(run_app)) return run_command(run);
    } catch (const std::exception& error) {
        // A model or the engine broke an invariant: a bug, not bad input.
        fmt::print(stderr, "locksim: internal error: {}\n", error.what());
        return 3;
    }
    return 2;
}
