#include "checks/run_outcome.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "checks/metric_words.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

bool DesignOutcome::did_nothing() const {
    return verdict.job_charges && metrics.value(Metric::charges) == 0;
}

bool DesignOutcome::held() const {
    return std::all_of(expectations.begin(), expectations.end(), [](const auto& e) { return e.held; });
}

bool DesignOutcome::violated() const {
    return verdict.violations != 0;
}

bool DesignOutcome::unfinished() const {
    return locksim::unfinished(metrics);
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

namespace {

bool compare(Expectation::Comparison comparison, std::int64_t actual, std::int64_t expected) {
    switch (comparison) {
        case Expectation::Comparison::equals: return actual == expected;
        case Expectation::Comparison::at_least: return actual >= expected;
        case Expectation::Comparison::at_most: return actual <= expected;
    }
    return false;
}

std::vector<std::int64_t> double_charged_customers(const RunMetrics& metrics) {
    std::vector<std::int64_t> customers;
    for (const auto& d : metrics.double_charged) customers.push_back(d.customer);
    std::sort(customers.begin(), customers.end());
    customers.erase(std::unique(customers.begin(), customers.end()), customers.end());
    return customers;
}

std::string pair_text(const std::string& a, const std::string& b) {
    return fmt::format("{} and {}", std::min(a, b), std::max(a, b));
}

// At least one overlap between the two named servers (others may overlap too).
ExpectationResult judge_holders(const Expectation& expectation, const RunMetrics& metrics, const Trace& trace) {
    const std::string wanted = pair_text(expectation.holders[0], expectation.holders[1]);
    std::vector<std::string> pairs;
    for (const auto& overlap : metrics.overlaps) {
        std::string pair = pair_text(trace.node_name(overlap.first), trace.node_name(overlap.second));
        if (std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) pairs.push_back(std::move(pair));
    }
    std::sort(pairs.begin(), pairs.end());
    const bool held = std::find(pairs.begin(), pairs.end(), wanted) != pairs.end();
    return ExpectationResult{expectation, metrics.value(expectation.metric), held,
                             pairs.empty() ? "none" : fmt::format("{}", fmt::join(pairs, "; "))};
}

ExpectationResult judge(const Expectation& expectation, const RunMetrics& metrics, const Trace& trace) {
    switch (expectation.subject) {
        case Expectation::Subject::count: {
            const std::int64_t actual = metrics.value(expectation.metric);
            return ExpectationResult{expectation, actual, compare(expectation.comparison, actual, expectation.value),
                                     ""};
        }
        case Expectation::Subject::customers: {
            const auto customers = double_charged_customers(metrics);
            return ExpectationResult{expectation, metrics.value(expectation.metric), customers == expectation.customers,
                                     fmt::format("[{}]", fmt::join(customers, ", "))};
        }
        case Expectation::Subject::holders: return judge_holders(expectation, metrics, trace);
        case Expectation::Subject::time: {
            // An expectation of when the first violation came is also one that it came.
            if (!metrics.first_violation) return ExpectationResult{expectation, -1, false, "none"};
            const std::int64_t at = metrics.first_violation->ns;
            return ExpectationResult{expectation, at, compare(expectation.comparison, at, expectation.value),
                                     format_duration(Duration{at})};
        }
    }
    throw std::logic_error("an expectation of an unknown subject");
}

}  // namespace

std::vector<ExpectationResult> evaluate(const std::vector<Expectation>& expectations, const RunMetrics& metrics,
                                        const Trace& trace) {
    std::vector<ExpectationResult> results;
    for (const auto& expectation : expectations) results.push_back(judge(expectation, metrics, trace));
    return results;
}

std::vector<ExpectationResult> evaluate(const std::vector<Expectation>& expectations,
                                        const std::function<std::int64_t(std::string_view)>& value_of) {
    std::vector<ExpectationResult> results;
    for (const auto& expectation : expectations) {
        // The loader lets only counts into a sweep's or an exploration's expectations.
        if (expectation.subject != Expectation::Subject::count)
            throw std::logic_error("an expectation of who or when judged on totals");
        const std::int64_t actual = value_of(expectation.metric);
        results.push_back(
            ExpectationResult{expectation, actual, compare(expectation.comparison, actual, expectation.value), ""});
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

std::string describe_failure(const ExpectationResult& result, const Vocabulary& words) {
    const Expectation& e = result.expectation;
    const std::string metric = expected_metric_words(e.metric, words);
    const char* how = "";
    switch (e.comparison) {
        case Expectation::Comparison::equals: how = ""; break;
        case Expectation::Comparison::at_least: how = "at least "; break;
        case Expectation::Comparison::at_most: how = "at most "; break;
    }
    switch (e.subject) {
        case Expectation::Subject::count: break;
        case Expectation::Subject::customers:
            return fmt::format("{} expected {} [{}], got {}", metric, words.items(), fmt::join(e.customers, ", "),
                               result.found);
        case Expectation::Subject::holders:
            return fmt::format("{} expected one between {}, got {}", metric, pair_text(e.holders[0], e.holders[1]),
                               result.found);
        case Expectation::Subject::time:
            return fmt::format("{} expected {}{}, got {}", metric, how, format_duration(Duration{e.value}),
                               result.found == "none" ? "no violation" : result.found);
    }
    return fmt::format("{} expected {}{}{}, got {}", metric, how, e.value,
                       e.implied ? fmt::format(" ({})", e.implied_because) : "", result.actual);
}

std::string describe_failure(const ExpectationResult& result, const DesignOutcome& design) {
    std::string text = describe_failure(result, vocabulary_of(design.trace));
    const MetricSpec* spec = find_metric(result.expectation.metric);
    if (spec == nullptr || !spec->violation()) return text;
    const auto flag = std::find_if(design.metrics.flagged.begin(), design.metrics.flagged.end(),
                                   [spec](const FlaggedEvent& f) { return f.metric == spec->metric; });
    if (flag != design.metrics.flagged.end()) text += " (" + flag->explanation + ")";
    return text;
}

}  // namespace locksim
