// "One charge per customer and period": counted from the provider's charge events,
// whatever the designs intended.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "checks/checkers.hpp"
#include "models/effect_steps.hpp"
#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"

namespace locksim {
namespace {

// "second", "third" … "tenth", then "11th", "21st", "22nd", "23rd", "111th".
std::string ordinal(std::int64_t n) {
    static constexpr const char* spelled[] = {"first", "second",  "third",  "fourth", "fifth",
                                              "sixth", "seventh", "eighth", "ninth",  "tenth"};
    if (n >= 1 && n <= 10) return spelled[n - 1];
    const std::int64_t last_two = n % 100;
    const std::int64_t last = n % 10;
    const char* suffix = (last_two >= 11 && last_two <= 13) ? "th"
                         : last == 1                        ? "st"
                         : last == 2                        ? "nd"
                         : last == 3                        ? "rd"
                                                            : "th";
    return fmt::format("{}{}", n, suffix);
}

// "a second", "an eighth", "an 11th", "an 18th", "an 80th": the article as the number is said.
std::string with_article(const std::string& ordinal) {
    const bool vowel_sound = ordinal.starts_with('e') || ordinal.starts_with('8') ||
                             ((ordinal.starts_with("11") || ordinal.starts_with("18")) && ordinal.size() == 4);
    return (vowel_sound ? "an " : "a ") + ordinal;
}

}  // namespace

void ChargeCounter::see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics) {
    if (event.kind == trace_kind::job_due && event.has("step_names"))
        step_names_ = step_names_of(event.text("step_names"));
    if (event.kind != trace_kind::provider_charged) return;
    metrics.add(Metric::charges);
    const std::int64_t step = event.has("step") ? event.integer("step") : 1;
    const std::int64_t count = ++charges_[{event.integer("customer"), std::string(event.text("period")), step}];
    if (count > 1) {
        metrics.add(Metric::double_charges);  // each charge beyond the first, of each step
        const Vocabulary words = vocabulary_of(trace);
        const std::string done = step > 1 || !step_names_.empty()
                                     ? fmt::format(": {} done", step_name(step_names_, step))
                                     : std::string(" ") + words.effected();
        metrics.flagged.push_back(
            FlaggedEvent{event.sequence, Metric::double_charges,
                         fmt::format("{} {}{} {} time for {}", words.item, event.integer("customer"), done,
                                     with_article(ordinal(count)), event.text("period"))});
    }
}

// Each (customer, period) once, with the most times any one step of its effect was done.
void ChargeCounter::finish(const Trace&, Instant, RunMetrics& metrics) {
    for (const auto& [done, count] : charges_) {
        if (count < 2) continue;
        const auto& [customer, period, step] = done;
        if (!metrics.double_charged.empty() && metrics.double_charged.back().customer == customer &&
            metrics.double_charged.back().period == period) {
            metrics.double_charged.back().charges = std::max(metrics.double_charged.back().charges, count);
            continue;
        }
        metrics.double_charged.push_back(DoubleCharge{customer, period, count});
    }
}

}  // namespace locksim

namespace locksim {

// "One renewal row per customer and period", at the database: the row set to charged by
// one server and then again by another is the renewal applied twice, whatever the
// provider did with the money. Counted, not flagged: the second write sets the same
// status, so whether it hurt is the money's question (double charges, which are flagged).
void DoubleApplyCounter::see(const Trace&, const TraceEvent& event, RunMetrics& metrics) {
    // A write its transaction rolled back was never applied.
    if (event.kind == trace_kind::db_rolled_back && event.has("customer")) {
        writers_[{event.integer("customer"), std::string(event.text("period"))}].erase(event.node_ref("client").index);
        return;
    }
    if (event.kind != trace_kind::db_write || event.text("status") != "charged" || event.integer("rows") == 0) return;
    auto& by = writers_[{event.integer("customer"), std::string(event.text("period"))}];
    if (by.insert(event.node_ref("client").index).second && by.size() >= 2) metrics.add(Metric::double_applies);
}

}  // namespace locksim
