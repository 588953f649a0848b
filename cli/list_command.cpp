#include "cli/list_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "checks/command_line.hpp"
#include "checks/metrics.hpp"
#include "cli/course_order.hpp"
#include "cli/installed_files.hpp"
#include "cli/terminal.hpp"
#include "reports/text_style.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

namespace locksim {
namespace {

// The description's first sentence: the scenario's story in a line.
std::string first_sentence(const std::string& text) {
    for (std::size_t at = text.find(". "); at != std::string::npos; at = text.find(". ", at + 1)) {
        if (at >= 2 && text.compare(at - 2, 2, " s") == 0) continue;  // "30 s. " is not an ending
        return text.substr(0, at + 1);
    }
    return text;
}

}  // namespace

int list_command(const std::vector<std::string>& paths, const std::string& format, const std::string& color) {
    std::vector<UnusablePath> unusable_paths;
    const auto files = scenario_files(paths, unusable_paths);
    struct Entry {
        std::string section;
        std::string file;
        std::string name;
        std::string story;
        std::string description;
        std::vector<std::string> designs;
    };
    std::vector<Entry> entries;
    std::vector<Scenario> scenarios;
    int unusable = 0;
    for (const auto& path : unusable_paths) {
        fmt::print(stderr, "{}\n", path.message);
        ++unusable;
    }
    for (const auto& file : files) {
        try {
            const Scenario scenario = load_scenario_file(file, metric_names());
            Entry entry{scenario.section.empty() ? "-" : scenario.section,
                        file,
                        scenario.name,
                        scenario.lesson.empty() ? first_sentence(scenario.description) : scenario.lesson,
                        scenario.description,
                        {}};
            for (const auto& design : scenario.designs) entry.designs.push_back(design.name);
            entries.push_back(std::move(entry));
            scenarios.push_back(scenario);
        } catch (const ScenarioError& error) {
            fmt::print(stderr, "{}\n", error.what());
            ++unusable;
        }
    }
    std::vector<const Scenario*> in_files;
    for (const auto& scenario : scenarios) in_files.push_back(&scenario);
    std::vector<Entry> in_order;
    try {
        for (const std::size_t k : course_order(in_files)) in_order.push_back(std::move(entries[k]));
    } catch (const CourseOrderError& error) {
        fmt::print(stderr, "{}\n", error.what());
        return 2;
    }
    entries = std::move(in_order);
    if (format == "json") {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const auto& e : entries)
            list.push_back({{"file", e.file},
                            {"name", e.name},
                            {"section", e.section == "-" ? "" : e.section},
                            {"lesson", e.story},
                            {"description", e.description},
                            {"designs", e.designs}});
        fmt::print("{}\n", list.dump(2));
        return unusable > 0 ? 2 : 0;
    }
    std::size_t name_width = 4;
    for (const auto& e : entries) name_width = std::max(name_width, e.name.size());
    const TextStyle style(use_colour(color_choice(color)));
    fmt::print("{}\n", style.heading(fmt::format("{:<7}  {:<{}}  {}", "chapter", "name", name_width, "lesson")));
    for (const auto& e : entries)
        fmt::print("{:<7}  {}  {}\n", e.section, style.heading(fmt::format("{:<{}}", e.name, name_width)), e.story);
    fmt::print("\n{} scenario{}; run one with: locksim run {}\n", entries.size(), entries.size() == 1 ? "" : "s",
               entries.empty() ? "FILE" : shell_quoted(entries.front().file));
    return unusable > 0 ? 2 : 0;
}

// `locksim list`: its options and their help on the program's command line.
Subcommand add_list_command(CLI::App& app) {
    struct Line {
        std::vector<std::string> paths;  // none: the library (installed_files.hpp)
        std::string format = "text";
        std::string color = "auto";
    };
    const auto line = std::make_shared<Line>();
    CLI::App* list = app.add_subcommand("list", "List the scenarios with the chapter each tells and its story");
    list->add_option("PATH", line->paths, "Scenario files or directories (" + default_scenario_paths_help() + ")");
    list->add_option("--format", line->format,
                     "text (default) or json (file, name, section, lesson, description, designs)")
        ->check(CLI::IsMember({"text", "json"}));
    add_color(*list, line->color);
    list->footer("Example: locksim list\n         locksim list scenarios --format json");
    return Subcommand{.app = list, .run = [line] {
                          return list_command(scenario_paths_or_library(line->paths), line->format, line->color);
                      }};
}

}  // namespace locksim
