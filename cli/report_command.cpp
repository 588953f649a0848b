#include "cli/report_command.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "checks/command_line.hpp"
#include "cli/atomic_file.hpp"
#include "cli/terminal.hpp"
#include "reports/html/html_report.hpp"
#include "reports/html/markup.hpp"
#include "reports/text_style.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/what_if.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {

// The page's file name: the scenario's name as a slug, never "index" (the course index's)
// and never one already written in this run (two names can slug alike).
std::string page_name(const std::string& scenario, std::set<std::string>& taken) {
    taken.insert("index");
    const std::string base = slug(scenario);
    std::string name = base;
    for (int n = 2; taken.contains(name); ++n) name = fmt::format("{}-{}", base, n);
    taken.insert(name);
    return name + ".html";
}

// The program as the replay command names it: "build/locksim" of "build/locksim run …".
std::string program_name(const std::string& replay) {
    return replay.substr(0, replay.find(" run "));
}

std::optional<std::string> write_scenario_report(const ScenarioOutcome& outcome, const Scenario& scenario,
                                                 const std::string& directory, const std::string& replay,
                                                 const std::string& index_link, std::set<std::string>* taken) {
    if (!make_directory(directory)) return std::nullopt;
    std::set<std::string> only_this;
    const std::filesystem::path path =
        std::filesystem::path(directory) / page_name(outcome.name, taken ? *taken : only_this);
    std::vector<PageExercise> what_if_list;
    for (auto& what_if : what_ifs(scenario, program_name(replay), scenario.file, outcome.seed))
        what_if_list.push_back(PageExercise{std::move(what_if.question), std::move(what_if.command)});
    const std::string page =
        render_html_report(outcome, ReportPage{scenario.section, replay, index_link, std::move(what_if_list)});
    if (!write_file(path, page)) return std::nullopt;
    return path.string();
}

int report_command(const ReportCommandOptions& options) {
    std::vector<std::string> missing;
    const auto files = scenario_files(options.paths, missing);
    for (const auto& path : missing) fmt::print(stderr, "{}: no such file or directory\n", path);
    if (!make_directory(options.out)) return 2;
    const bool progress = show_progress();

    std::vector<CourseEntry> entries;
    std::set<std::string> taken;
    int unusable = static_cast<int>(missing.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string& file = files[i];
        if (progress) fmt::print(stderr, "\r[{}/{}] {}\033[K", i + 1, files.size(), file);
        const auto scenario = load_scenario_or_report(file);
        if (!scenario) {
            ++unusable;
            continue;
        }
        const std::uint64_t seed = options.seed.value_or(scenario->seed);
        ScenarioOutcome outcome;
        try {
            outcome = run_scenario(*scenario, seed, std::nullopt, RunOptions{.event_limit = options.max_events});
        } catch (const RunawayRun& runaway) {
            fmt::print(stderr, "{}: {}\n", file, runaway.what());
            ++unusable;
            continue;
        }
        const auto written = write_scenario_report(outcome, *scenario, options.out,
                                                   replay_command(options.program, file, seed), "index.html", &taken);
        if (!written) return 2;
        entries.push_back(CourseEntry{scenario->section, scenario->name, scenario->lesson,
                                      std::filesystem::path(*written).filename().string(), outcome.held(),
                                      outcome.violated_designs()});
    }
    if (progress) fmt::print(stderr, "\r\033[K");
    // The seed's order: by section, then by name, as `locksim list` prints it.
    std::stable_sort(entries.begin(), entries.end(), [](const CourseEntry& a, const CourseEntry& b) {
        const std::string sa = a.section.empty() ? "9" : a.section, sb = b.section.empty() ? "9" : b.section;
        return std::tie(sa, a.name) < std::tie(sb, b.name);
    });
    const auto index = std::filesystem::path(options.out) / "index.html";
    if (!write_file(index, render_course_index(entries))) return 2;
    fmt::print("Wrote {} report{} and the course index: {}\n", entries.size(), entries.size() == 1 ? "" : "s",
               index.string());
    return unusable > 0 ? 2 : 0;
}

}  // namespace locksim
