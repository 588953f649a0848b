#include "reports/cli/list_command.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "reports/checks/metrics.hpp"
#include "reports/cli/scenario_runner.hpp"
#include "reports/text_style.hpp"
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

int list_command(const std::vector<std::string>& paths) {
    std::vector<std::string> missing;
    const auto files = scenario_files(paths, missing);
    struct Entry {
        std::string section;
        std::string file;
        std::string name;
        std::string story;
    };
    std::vector<Entry> entries;
    int unusable = 0;
    for (const auto& path : missing) {
        fmt::print(stderr, "{}: no such file or directory\n", path);
        ++unusable;
    }
    for (const auto& file : files) {
        try {
            const Scenario scenario = load_scenario_file(file, metric_names());
            entries.push_back(Entry{scenario.section.empty() ? "-" : scenario.section, file, scenario.name,
                                    scenario.lesson.empty() ? first_sentence(scenario.description) : scenario.lesson});
        } catch (const ScenarioError& error) {
            fmt::print(stderr, "{}\n", error.what());
            ++unusable;
        }
    }
    // In the order the seed tells its story: by section, then by name.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const Entry& a, const Entry& b) { return std::tie(a.section, a.name) < std::tie(b.section, b.name); });
    std::size_t name_width = 4;
    for (const auto& e : entries) name_width = std::max(name_width, e.name.size());
    fmt::print("{:<7}  {:<{}}  {}\n", "section", "name", name_width, "lesson");
    for (const auto& e : entries) fmt::print("{:<7}  {:<{}}  {}\n", e.section, e.name, name_width, e.story);
    fmt::print("\n{} scenario{}; run one with: locksim run {}\n", entries.size(), entries.size() == 1 ? "" : "s",
               entries.empty() ? "FILE" : shell_quoted(entries.front().file));
    return unusable > 0 ? 2 : 0;
}

}  // namespace locksim
