#pragma once
// `locksim sweep FILE --seeds N` and `locksim merge SHARD…`.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "cli/subcommand.hpp"
#include "scenarios/schema/scenario.hpp"
#include "sim/engine.hpp"

namespace locksim {

struct SweepCommandOptions {
    std::string file;
    std::uint64_t seeds = 0;
    std::uint64_t start = 1;
    unsigned jobs = 0;  // 0: every CPU this process may use
    std::string format = "text";
    std::optional<std::string> shard;   // "i/n", "slurm/n", … (shard_choice.hpp)
    std::optional<std::string> output;  // write the result here, atomically, instead of printing it
    std::string color = "auto";
    std::string program = "locksim";
    std::uint64_t max_events = Engine::default_event_limit;
    std::optional<std::string> design;            // only this design
    std::vector<std::string> max_rates;           // "DESIGN=RATE" gates: exit 1 when a rate is above
    std::optional<std::string> junit;             // the gates as JUnit XML
    double runs_per_day = 0;                      // turn rates into incidents a day and a year (0: not asked)
    std::vector<std::string> vary;                // "lock.ttl=5s,10s": a parameter study over the grid of these
    std::optional<std::string> report_directory;  // with vary: also write DIR/<scenario>-study.html
    std::optional<std::uint64_t> given_fault;     // draw every run given this fault generator strikes
};

// 0 done and every --max-rate held, 1 a gate breached, 2 unusable input.
int sweep_command(const SweepCommandOptions& options);

// The study page of `scenario` (which has a "study" block), its grid run on `threads`
// threads: the page `sweep FILE --seeds N --vary … --report DIR` writes for that grid.
std::string study_page(const Scenario& scenario, unsigned threads, std::uint64_t event_limit);

struct MergeCommandOptions {
    std::vector<std::string> files;
    bool missing = false;      // print the missing shard indices only
    bool partial = false;      // totals over the shards present so far
    std::uint64_t verify = 0;  // rerun this many seeds of each shard first (0: none)
    std::optional<std::string> output;
    std::string format = "text";
    std::string color = "auto";
    std::string program = "locksim";
};

int merge_command(const MergeCommandOptions& options);

// `locksim sweep` and `locksim merge`, added to the program's command line; `program`:
// how the user invoked us.
Subcommand add_sweep_command(CLI::App& app, const std::string& program);
Subcommand add_merge_command(CLI::App& app, const std::string& program);

}  // namespace locksim
