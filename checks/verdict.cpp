#include "checks/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace locksim {
namespace {

std::uint32_t violations_in(const RunMetrics& metrics) {
    std::uint32_t found = 0;
    for (const auto& flag : metrics.flagged)
        if (flag.violation()) found |= violation_flag(flag.metric);
    return found;
}

}  // namespace

Verdict judge_run(const RunMetrics& metrics, const std::vector<Expectation>& expectations,
                  const VerdictContext& context) {
    Verdict verdict;
    verdict.job_charges = context.job_charges;
    verdict.violations = violations_in(metrics);
    for (const Metric metric : violated_metrics(verdict.violations)) {
        const MetricSpec& spec = metric_spec(metric);
        const bool declared = names_metric(expectations, spec.name) ||
                              (spec.efficiency_cost && context.purpose == LockPurpose::efficiency);
        if (!declared) verdict.undeclared |= violation_flag(metric);
    }
    if (context.job_charges && metrics.value(Metric::charges) == 0 &&
        !names_metric(expectations, metric_name(Metric::charges))) {
        verdict.no_effects = true;
        verdict.charged_without_faults = context.charged_without_faults;
    }
    return verdict;
}

std::vector<ExpectationResult> verdict_failures(const Verdict& verdict, const RunMetrics& metrics,
                                                const Vocabulary& words) {
    std::vector<ExpectationResult> failures;
    for (const Metric metric : violated_metrics(verdict.undeclared)) {
        Expectation zero{std::string(metric_name(metric)), Expectation::Comparison::equals, 0, true};
        zero.implied_because = "a violation the design's \"expect\" does not name";
        failures.push_back(ExpectationResult{std::move(zero), metrics.value(metric), false, ""});
    }
    if (verdict.no_effects) {
        // The faults stopped all work, or the settings leave none: either way the run shows
        // nothing of the lock, and an expectation of "charges" says it is meant.
        const std::string without =
            !verdict.charged_without_faults ? fmt::format("this design {} no one", words.effected())
            : *verdict.charged_without_faults == 0
                ? fmt::format("the run without faults {} no one either: its settings leave no work possible",
                              words.effected())
                : fmt::format("the run without faults {} {}", words.effected(), *verdict.charged_without_faults);
        Expectation some{std::string(metric_name(Metric::charges)), Expectation::Comparison::at_least, 1, true};
        some.implied_because = fmt::format("no effects: {}", without);
        failures.push_back(ExpectationResult{std::move(some), metrics.value(Metric::charges), false, ""});
    }
    return failures;
}

std::vector<Metric> violated_metrics(std::uint32_t violations) {
    std::vector<Metric> metrics;
    for (const Metric metric : violation_metrics())
        if ((violations & violation_flag(metric)) != 0) metrics.push_back(metric);
    return metrics;
}

std::vector<std::string> violation_names(std::uint32_t violations) {
    std::vector<std::string> names;
    for (const Metric metric : violated_metrics(violations)) names.emplace_back(metric_name(metric));
    return names;
}

}  // namespace locksim
