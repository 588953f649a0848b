#include "checks/run_outcome.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "sim/duration_text.hpp"

namespace locksim {

bool DesignOutcome::held() const {
    return std::all_of(expectations.begin(), expectations.end(), [](const auto& e) { return e.held; });
}

bool DesignOutcome::violated() const {
    return std::any_of(metrics.flagged.begin(), metrics.flagged.end(), [](const auto& f) { return f.violation; });
}

bool DesignOutcome::passes_only_with_inert_faults() const {
    return faults && faults->all_missed() && faults->held_without_faults && !expectations.empty() && held();
}

bool ScenarioOutcome::held() const {
    return std::all_of(designs.begin(), designs.end(), [](const auto& d) { return d.held(); });
}

std::vector<std::string> ScenarioOutcome::violated_designs() const {
    std::vector<std::string> names;
    for (const auto& design : designs)
        if (design.violated()) names.push_back(design.name);
    return names;
}

std::vector<ExpectationResult> evaluate(const std::vector<Expectation>& expectations, const RunMetrics& metrics) {
    return evaluate(expectations, [&metrics](std::string_view metric) { return metrics.value(metric); });
}

std::vector<ExpectationResult> evaluate(const std::vector<Expectation>& expectations,
                                        const std::function<std::int64_t(std::string_view)>& value_of) {
    std::vector<ExpectationResult> results;
    for (const auto& expectation : expectations) {
        const std::int64_t actual = value_of(expectation.metric);
        bool held = false;
        switch (expectation.comparison) {
            case Expectation::Comparison::equals: held = actual == expectation.value; break;
            case Expectation::Comparison::at_least: held = actual >= expectation.value; break;
            case Expectation::Comparison::at_most: held = actual <= expectation.value; break;
        }
        results.push_back(ExpectationResult{expectation, actual, held});
    }
    return results;
}

const char* to_string(LockPurpose purpose) {
    return purpose == LockPurpose::efficiency ? "efficiency" : "correctness";
}

std::string efficiency_cost(const DesignOutcome& design) {
    if (design.purpose != LockPurpose::efficiency || design.metrics.duplicate_work.ns == 0) return "";
    return fmt::format("{} of duplicated work", format_duration_rounded(design.metrics.duplicate_work));
}

std::string describe_failure(const ExpectationResult& result) {
    const char* how = "";
    switch (result.expectation.comparison) {
        case Expectation::Comparison::equals: how = ""; break;
        case Expectation::Comparison::at_least: how = "at least "; break;
        case Expectation::Comparison::at_most: how = "at most "; break;
    }
    return fmt::format("{} expected {}{}{}, got {}", result.expectation.metric, how, result.expectation.value,
                       result.expectation.implied ? " (a correctness lock)" : "", result.actual);
}

}  // namespace locksim
