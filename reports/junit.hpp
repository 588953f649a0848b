#pragma once
// JUnit XML for CI test reporters (GitLab, Jenkins, GitHub): one testsuite per scenario,
// one testcase per design, the failure message as `locksim check` prints it. Valid
// against the common JUnit schema (tests/junit.xsd), and the same bytes for the same
// results: every `time` is 0 (junit.cpp says why).
#include <string>
#include <vector>

namespace locksim {

struct CheckedDesign {
    std::string name;
    std::vector<std::string> failures;  // "<metric> expected 0, got 1"
    std::string cost;                   // an efficiency lock's: "35s of duplicated work"
    std::vector<std::string> warnings;  // faults that changed nothing: the pass proves less than it seems
    // What a sweep's runs tested, said beside its result: "a fault reached the lock in 1412
    // of 2000 runs".
    std::string tested;
};

struct CheckedScenario {
    std::string file;
    std::string name;   // empty when the file could not be used
    std::string error;  // why the file could not be used: one line that starts with the file
    std::vector<CheckedDesign> designs;
};

// `suite`: the name of the whole report, "locksim check" or "locksim sweep".
std::string render_junit(const std::vector<CheckedScenario>& scenarios, const std::string& suite = "locksim check");

}  // namespace locksim
