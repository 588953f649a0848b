#pragma once
// Writing HTML reports: `locksim run FILE --report DIR` writes one scenario's page;
// `locksim report PATH… --out DIR` writes a page per scenario and the course index.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/run_outcome.hpp"
#include "cli/atomic_file.hpp"
#include "cli/subcommand.hpp"
#include "reports/html/html_report.hpp"
#include "scenarios/schema/scenario.hpp"

namespace locksim {

// Where a page sits in a course (`locksim report`); empty for a page of its own.
struct CourseLinks {
    std::string file_name;  // the page's own, chosen with its neighbours' (empty: from the scenario's name)
    std::string index;      // the course index
    std::optional<PageLink> previous;
    std::optional<PageLink> next;
    std::vector<PageLink> see_also;
    std::string explore_map;         // the course's vulnerability map of the scenario, or empty
    std::optional<StudyLink> study;  // the course's study page of the scenario, if it has one
};

// The file names of the pages a command writes alone into its report folder for the scenario
// named `scenario`: its lesson (`run --report`), its vulnerability map (`explore --report`),
// its study (`sweep --vary --report`). A course (`locksim report`) names its own.
std::string lesson_page_name(const std::string& scenario);
std::string explore_page_name(const std::string& scenario);
std::string study_page_name(const std::string& scenario);

// The scenario's report as files of the report folder: its designs' pages of every step,
// then the page itself (<scenario>.html, last). `program`: how the user invoked locksim, for
// the commands the page suggests. The caller writes them (write_files_atomically).
// A scenario whose faults are drawn at random gets a page that names its run as one draw;
// `rates`, its sweep (runners/lesson_rates.hpp), when one was run.
std::vector<OutputFile> scenario_report_files(const ScenarioOutcome& outcome, const Scenario& scenario,
                                              const std::string& program, const std::string& replay_command,
                                              const CourseLinks& course = {},
                                              std::optional<LessonRates> rates = std::nullopt);

struct ReportCommandOptions {
    std::vector<std::string> paths;
    std::string out = "site";
    std::optional<std::uint64_t> seed;
    std::string program = "locksim";
    std::uint64_t max_events = Engine::default_event_limit;
};

// 0 every page written, 2 a file or the output directory could not be used.
int report_command(const ReportCommandOptions& options);

// `locksim report`, added to the program's command line; `program`: how the user invoked us.
Subcommand add_report_command(CLI::App& app, const std::string& program);

}  // namespace locksim
