#pragma once
// Writing HTML reports: `locksim run FILE --report DIR` writes one scenario's page;
// `locksim report PATH… --out DIR` writes a page per scenario and the course index.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/run_outcome.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// Writes DIR/<scenario>.html and returns its path; nullopt after printing why it could not.
// `taken`: page names already written by this run, which this one must not reuse.
std::optional<std::string> write_scenario_report(const ScenarioOutcome& outcome, const Scenario& scenario,
                                                 const std::string& directory, const std::string& replay_command,
                                                 const std::string& index_link = "",
                                                 std::set<std::string>* taken = nullptr);

// "locksim run scenarios/gc-pause-40s.json --seed 1", quoted for a shell.

struct ReportCommandOptions {
    std::vector<std::string> paths;
    std::string out = "site";
    std::optional<std::uint64_t> seed;
    std::string program = "locksim";
    std::uint64_t max_events = Engine::default_event_limit;
};

// 0 every page written, 2 a file or the output directory could not be used.
int report_command(const ReportCommandOptions& options);

}  // namespace locksim
