#include "reports/junit.hpp"

#include "reports/html/markup.hpp"

#include <fmt/format.h>

namespace locksim {

// Every element that has a `time` says "0". The common JUnit schema requires the
// attribute, and CI reporters read it as the seconds the test took on the CI machine: they
// add it up, chart it and list the slowest tests. The wall time would make the file differ
// from run to run, and the simulated time a design covered (46 s in gc-pause-40s, an hour
// in a sweep's runs) is not what those charts mean; both belong elsewhere (`--format json`
// reports the simulated time). The file is byte-identical for the same input.
constexpr std::string_view junit_time = "0";

// The scenario's file is an attribute of its testsuite, not of each testcase: the common
// schema (Jenkins' xUnit plugin validates against it) has no `file` on a testcase.
std::string render_junit(const std::vector<CheckedScenario>& scenarios, const std::string& suite) {
    std::size_t tests = 0, failures = 0, errors = 0;
    std::string suites;
    for (const auto& scenario : scenarios) {
        if (!scenario.error.empty()) {
            ++tests;
            ++errors;
            suites += fmt::format(
                "  <testsuite name=\"{0}\" tests=\"1\" failures=\"0\" errors=\"1\" time=\"{2}\" file=\"{0}\">\n"
                "    <testcase classname=\"{0}\" name=\"load\" time=\"{2}\">\n"
                "      <error message=\"{1}\"/>\n"
                "    </testcase>\n"
                "  </testsuite>\n",
                escaped(scenario.file), escaped(scenario.error), junit_time);
            continue;
        }
        std::size_t suite_failures = 0;
        std::string cases;
        for (const auto& design : scenario.designs) {
            ++tests;
            cases += fmt::format("    <testcase classname=\"{}\" name=\"{}\" time=\"{}\"", escaped(scenario.name),
                                 escaped(design.name), junit_time);
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
        suites += fmt::format(
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" time=\"{}\" file=\"{}\">\n{}  "
            "</testsuite>\n",
            escaped(scenario.name), scenario.designs.size(), suite_failures, junit_time, escaped(scenario.file), cases);
    }
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" time=\"{}\">\n{}</testsuites>\n",
        escaped(suite), tests, failures, errors, junit_time, suites);
}

}  // namespace locksim
