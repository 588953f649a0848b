#include "reports/junit.hpp"

#include "reports/html/markup.hpp"

#include <fmt/format.h>

namespace locksim {

std::string render_junit(const std::vector<CheckedScenario>& scenarios, const std::string& suite) {
    std::size_t tests = 0, failures = 0, errors = 0;
    std::string suites;
    for (const auto& scenario : scenarios) {
        if (!scenario.error.empty()) {
            ++tests;
            ++errors;
            suites += fmt::format(
                "  <testsuite name=\"{0}\" tests=\"1\" failures=\"0\" errors=\"1\">\n"
                "    <testcase classname=\"{0}\" name=\"load\" file=\"{0}\">\n"
                "      <error message=\"{1}\"/>\n"
                "    </testcase>\n"
                "  </testsuite>\n",
                escaped(scenario.file), escaped(scenario.error));
            continue;
        }
        std::size_t suite_failures = 0;
        std::string cases;
        for (const auto& design : scenario.designs) {
            ++tests;
            cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" file=\"{}\"", escaped(scenario.name),
                                 escaped(design.name), escaped(scenario.file));
            if (design.failures.empty() && design.cost.empty()) {
                cases += "/>\n";
                continue;
            }
            if (design.failures.empty()) {
                // Passed, with a cost a reader of the CI report should still see.
                cases += fmt::format(">\n      <system-out>efficiency lock: {}</system-out>\n    </testcase>\n",
                                     escaped(design.cost));
                continue;
            }
            ++suite_failures;
            std::string message;
            for (const auto& failure : design.failures) message += (message.empty() ? "" : "; ") + failure;
            cases += fmt::format(">\n      <failure message=\"{}\">{}</failure>\n    </testcase>\n", escaped(message),
                                 escaped(fmt::format("FAIL {} {}: {}", scenario.name, design.name, message)));
        }
        failures += suite_failures;
        suites += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\">\n{}  </testsuite>\n",
                              escaped(scenario.name), scenario.designs.size(), suite_failures, cases);
    }
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n{}</testsuites>\n",
        escaped(suite), tests, failures, errors, suites);
}

}  // namespace locksim
