#include "cli/report_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <tuple>

#include "checks/command_line.hpp"
#include "cli/atomic_file.hpp"
#include "cli/course_order.hpp"
#include "cli/explore_command.hpp"
#include "cli/output_paths.hpp"
#include "cli/sweep_command.hpp"
#include "cli/terminal.hpp"
#include "cli/whole_number.hpp"
#include "cli/worker_threads.hpp"
#include "reports/html/course_index.hpp"
#include "reports/html/html_report.hpp"
#include "reports/html/markup.hpp"
#include "reports/text_style.hpp"
#include "runners/lesson_rates.hpp"
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

std::string lesson_page_name(const std::string& scenario) {
    std::set<std::string> only_this;
    return page_name(scenario, only_this);
}

std::string explore_page_name(const std::string& scenario) {
    return slug(scenario) + "-explore.html";
}

std::string study_page_name(const std::string& scenario) {
    return slug(scenario) + "-study.html";
}

std::vector<OutputFile> scenario_report_files(const ScenarioOutcome& outcome, const Scenario& scenario,
                                              const std::string& program, const std::string& replay,
                                              const CourseLinks& course, std::optional<LessonRates> rates) {
    const std::string page = course.file_name.empty() ? lesson_page_name(outcome.name) : course.file_name;
    std::vector<PageExercise> what_if_list;
    for (auto& what_if : what_ifs(scenario, program, scenario.file, outcome.seed))
        what_if_list.push_back(PageExercise{std::move(what_if.question), std::move(what_if.command)});
    HtmlReport report = render_html_report(
        outcome, ReportPage{scenario.section, replay, course.index, std::move(what_if_list), course.previous,
                            course.next, course.see_also, page, teaches_a_rate(scenario), std::move(rates),
                            course.explore_map, course.study});
    std::vector<OutputFile> files;
    for (auto& steps : report.step_pages) files.push_back(OutputFile{steps.path, std::move(steps.html)});
    files.push_back(OutputFile{page, std::move(report.page)});
    return files;
}

namespace {

// A scenario of the course, loaded before any runs so that each page can link to the
// pages before and after it in the course's order.
struct CoursePage {
    std::string file;
    Scenario scenario;
    std::string page;  // its file name in the output directory
};

CourseLinks links_of(const std::vector<CoursePage>& pages, const std::vector<std::size_t>& order, std::size_t at) {
    CourseLinks links{pages[order[at]].page, "index.html", std::nullopt, std::nullopt, {}};
    const auto link = [&](std::size_t k) { return PageLink{pages[k].page, pages[k].scenario.name}; };
    if (at > 0) links.previous = link(order[at - 1]);
    if (at + 1 < order.size()) links.next = link(order[at + 1]);
    const auto chapter = [&](std::size_t k) { return first_chapter(pages[k].scenario.section); };
    for (const std::size_t k : order)
        if (k != order[at] && chapter(k) == chapter(order[at])) links.see_also.push_back(link(k));
    return links;
}

// A page written beside a lesson's, "gc-pause-40s-explore.html": named as the command that
// writes it alone names it (`explore --report`, `sweep --vary … --report`), unless a page
// of the course has that name.
std::string page_beside(const std::string& lesson_page, const std::string& suffix, std::set<std::string>& taken) {
    const std::string stem = lesson_page.substr(0, lesson_page.size() - 5) + suffix;
    std::string name = stem;
    for (int n = 2; taken.contains(name); ++n) name = fmt::format("{}-{}", stem, n);
    taken.insert(name);
    return name + ".html";
}

// A course entry's outcome, from its sweep: which designs lost in any run, and in how many.
void swept_outcome(const LessonRates& rates, CourseEntry& entry) {
    entry.runs = rates.sweep.seeds.count;
    entry.violated.clear();
    for (const auto& tally : rates.sweep.designs) {
        if (tally.runs_with_violation > 0)
            entry.violated.push_back(
                fmt::format("{} in {} of {} runs", tally.name, tally.runs_with_violation, tally.runs));
        if (tally.runs_unfinished > 0) entry.uncounted.push_back(tally.name);
    }
}

}  // namespace

int report_command(const ReportCommandOptions& options) {
    std::vector<UnusablePath> unusable_paths;
    const auto files = scenario_files(options.paths, unusable_paths);
    // Before any run: the folder can be written, and is none of the files read.
    check_outputs({OutputTarget{"--out", options.out, true}}, files);
    for (const auto& path : unusable_paths) fmt::print(stderr, "{}\n", path.message);
    const bool progress = show_progress();

    // Every file left out of the course, named again after the index is written: the
    // errors scroll by above the progress, and a course that lacks a lesson must say so.
    std::vector<std::string> left_out;
    for (const auto& path : unusable_paths) left_out.push_back(path.path);
    std::vector<CoursePage> pages;
    std::set<std::string> taken;
    for (const auto& file : files) {
        auto scenario = load_scenario_or_report(file);
        if (!scenario) {
            left_out.push_back(file);
            continue;
        }
        std::string page = page_name(scenario->name, taken);
        pages.push_back(CoursePage{file, std::move(*scenario), std::move(page)});
    }
    std::vector<const Scenario*> scenarios;
    for (const auto& page : pages) {
        scenarios.push_back(&page.scenario);
        refuse_linked_folder(options.out, page.page.substr(0, page.page.size() - 5) + "-steps", "--out");
    }
    std::vector<std::size_t> order;
    try {
        order = course_order(scenarios);
    } catch (const CourseOrderError& error) {
        fmt::print(stderr, "{}\n", error.what());
        return 2;
    }

    // Every page is written at the end, with the index, all or none.
    std::vector<OutputFile> site;
    std::vector<CourseEntry> entries;
    for (std::size_t at = 0; at < order.size(); ++at) {
        const CoursePage& course_page = pages[order[at]];
        const Scenario& scenario = course_page.scenario;
        if (progress) fmt::print(stderr, "\r[{}/{}] {}\033[K", at + 1, order.size(), course_page.file);
        const std::uint64_t seed = options.seed.value_or(scenario.seed);
        ScenarioOutcome outcome;
        try {
            outcome = run_scenario(scenario, seed, std::nullopt, RunOptions{.event_limit = options.max_events});
        } catch (const RunawayRun& runaway) {
            // Its neighbours still link to it: this line and the exit code say why it is missing.
            fmt::print(stderr, "{}: {}\n", course_page.file, runaway.what());
            left_out.push_back(course_page.file);
            continue;
        }
        std::optional<LessonRates> rates = lesson_rates(scenario, options.program, usable_cpus(), options.max_events);
        CourseEntry entry{scenario.section, scenario.name,  scenario.lesson,
                          course_page.page, outcome.held(), outcome.violated_designs()};
        if (rates) swept_outcome(*rates, entry);
        CourseLinks links = links_of(pages, order, at);
        if (scenario.explore) {
            links.explore_map = page_beside(course_page.page, "-explore", taken);
            site.push_back(OutputFile{links.explore_map,
                                      vulnerability_map_page(scenario, seed, usable_cpus(), options.max_events)});
        }
        if (scenario.study) {
            // Its own seeds, whatever --seed says: the study compares values, not draws.
            links.study = StudyLink{page_beside(course_page.page, "-study", taken), {}, scenario.study->seeds.count};
            for (const auto& field : scenario.study->fields) links.study->fields.push_back(field.path);
            site.push_back(OutputFile{links.study->href, study_page(scenario, usable_cpus(), options.max_events)});
        }
        for (auto& file :
             scenario_report_files(outcome, scenario, options.program,
                                   replay_command(options.program, course_page.file, seed), links, std::move(rates)))
            site.push_back(std::move(file));
        entries.push_back(std::move(entry));
    }
    if (progress) fmt::print(stderr, "\r\033[K");
    site.push_back(OutputFile{"index.html", render_course_index(entries)});
    write_files_atomically(options.out, site, "--out");
    const auto index = std::filesystem::path(options.out) / "index.html";
    fmt::print("Wrote {} report{} and the course index: {}\n", entries.size(), entries.size() == 1 ? "" : "s",
               index.string());
    if (!left_out.empty())
        fmt::print(stderr, "Left out of the course, each for the error above: {}\n", fmt::join(left_out, ", "));
    return left_out.empty() ? 0 : 2;
}

// `locksim report`: its options and their help on the program's command line.
Subcommand add_report_command(CLI::App& app, const std::string& program) {
    struct Line {
        ReportCommandOptions options;
    };
    const auto line = std::make_shared<Line>();
    line->options.program = program;
    CLI::App* report = app.add_subcommand(
        "report", "Write an HTML report per scenario and a course index that orders them by the course's chapters");
    report->add_option("PATH", line->options.paths, "Scenario files or directories")->required();
    report->add_option("--out", line->options.out, "Directory to write the pages into (default: site)");
    add_whole_number(*report, "--seed", line->options.seed, "Run every file under this seed instead of its own");
    report->footer(
        "Writes DIR/<scenario>.html for each scenario and DIR/index.html.\n"
        "Example: locksim report scenarios/ --out site && open site/index.html");
    add_event_limit(*report, line->options.max_events);
    return Subcommand{.app = report, .run = [line, report] { return report_command(line->options); }};
}

}  // namespace locksim
