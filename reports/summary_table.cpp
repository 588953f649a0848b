#include "reports/summary_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>

#include "checks/metric_words.hpp"
#include "models/vocabulary.hpp"

namespace locksim {

std::string format_tenths(Duration d) {
    const std::int64_t tenths = (d.ns + 50'000'000) / 100'000'000;
    return fmt::format("{}.{}s", tenths / 10, tenths % 10);
}

namespace {

std::string double_charge_cell(const RunMetrics& metrics, const Vocabulary& words, const TextStyle& style) {
    if (metrics.double_charged.empty()) return "0";
    std::vector<std::string> customers;
    for (const auto& d : metrics.double_charged) customers.push_back(fmt::format("{}", d.customer));
    const std::string noun = customers.size() == 1 ? words.item : words.items();
    return style.violation(
        fmt::format("{} ({} {})", metrics.value(Metric::double_charges), noun, fmt::join(customers, ", ")));
}

std::string overlap_cell(const RunMetrics& metrics) {
    if (metrics.overlaps.empty()) return "no";
    return fmt::format("yes ({})", format_tenths(metrics.overlap_time));
}

std::string expectations_cell(const DesignOutcome& design, const TextStyle& style) {
    if (design.expectations.empty()) return style.quiet("none set");
    const auto failed =
        std::count_if(design.expectations.begin(), design.expectations.end(), [](const auto& e) { return !e.held; });
    // Held is the file's contract, not good news: a design written to lose money holds too.
    if (failed == 0) return fmt::format("{} held", design.expectations.size());
    return style.violation(fmt::format("{} of {} failed", failed, design.expectations.size()));
}

}  // namespace

std::vector<Metric> extra_columns(const ScenarioOutcome& outcome) {
    std::vector<Metric> extra;
    for (const auto& spec : metric_table) {
        if (std::find(std::begin(always_compared), std::end(always_compared), spec.metric) != std::end(always_compared))
            continue;
        const bool expected = std::any_of(outcome.designs.begin(), outcome.designs.end(), [&](const auto& design) {
            return std::any_of(design.expectations.begin(), design.expectations.end(),
                               [&](const auto& result) { return result.expectation.metric == spec.name; });
        });
        if (expected) extra.push_back(spec.metric);
    }
    return extra;
}

std::string render_summary_table(const ScenarioOutcome& outcome, const TextStyle& style) {
    const auto extra = extra_columns(outcome);
    using Row = std::vector<std::string>;
    std::vector<Row> rows;
    const Vocabulary words = vocabulary_of(outcome.designs.front().trace);
    Row header{"design", metric_heading(Metric::double_charges, words), "holders overlapped",
               metric_heading(Metric::stale_writes_rejected, words)};
    for (const Metric metric : extra) header.push_back(metric_heading(metric, words));
    header.push_back("expectations");
    rows.push_back(header);
    for (const auto& design : outcome.designs) {
        const RunMetrics& m = design.metrics;
        Row row{design.name, double_charge_cell(m, words, style), overlap_cell(m),
                fmt::format("{}", m.value(Metric::stale_writes_rejected))};
        for (const Metric metric : extra) {
            // A violation's count is marked as the double charges are: lost work as red as lost money.
            const std::string value = fmt::format("{}", m.value(metric));
            row.push_back(metric_spec(metric).violation() && m.value(metric) > 0 ? style.violation(value) : value);
        }
        row.push_back(expectations_cell(design, style));
        rows.push_back(std::move(row));
    }
    return text_table(rows, style);
}

}  // namespace locksim
