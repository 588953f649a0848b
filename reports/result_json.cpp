#include "reports/result_json.hpp"

#include <fmt/format.h>

#include "checks/vocabulary_json.hpp"
#include "models/vocabulary.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

using Json = nlohmann::ordered_json;

Json expected_value(const Expectation& expectation) {
    switch (expectation.subject) {
        case Expectation::Subject::count: break;
        case Expectation::Subject::customers: return Json{{"customers", expectation.customers}};
        case Expectation::Subject::holders: return Json{{"between", expectation.holders}};
        case Expectation::Subject::time:
            return Json{{expectation.comparison == Expectation::Comparison::at_least ? "at_least" : "at_most",
                         format_duration(Duration{expectation.value})}};
    }
    switch (expectation.comparison) {
        case Expectation::Comparison::equals: return expectation.value;
        case Expectation::Comparison::at_least: return Json{{"at_least", expectation.value}};
        case Expectation::Comparison::at_most: return Json{{"at_most", expectation.value}};
    }
    return expectation.value;
}

// A count; a time in ns, null when nothing happened; and what was found, when the
// expectation names who or when.
Json actual_value(const ExpectationResult& result) {
    if (result.expectation.subject == Expectation::Subject::time && result.found == "none") return nullptr;
    return result.actual;
}

Json strikes_json(const Trace& trace, const std::vector<FaultStrike>& strikes) {
    Json list = Json::array();
    for (const auto& strike : strikes) {
        Json item{{"at_ns", trace.events()[strike.sequence].at.ns}, {"role", strike.role}};
        if (strike.target.valid()) item["node"] = trace.node_name(strike.target);
        if (!strike.was_doing.empty()) item["was_doing"] = strike.was_doing;
        if (strike.role == "network")
            item["messages"] = {{"held", strike.messages.held},
                                {"lost", strike.messages.lost},
                                {"cut", strike.messages.cut},
                                {"of_the_lock", strike.messages.of_the_lock}};
        list.push_back(std::move(item));
    }
    return list;
}

Json difference_json(const Difference& difference) {
    return Json{{"changed_nodes", difference.nodes}, {"changed_metrics", difference.metrics}};
}

// Whether each of the design's faults changed what any node did (checks/fault_effects.hpp).
Json faults_json(const DesignOutcome& design) {
    const FaultJudgement& judgement = *design.faults;
    Json each = Json::array();
    for (const auto& effect : judgement.each)
        each.push_back({{"pointer", fmt::format("/faults/{}", effect.fault)},
                        {"inert", effect.inert()},
                        {"reached_the_lock", effect.reached_the_lock},
                        {"struck", strikes_json(design.trace, effect.struck)},
                        {"without_it", difference_json(effect.without_it)}});
    return Json{{"changed_nothing", judgement.changed_nothing()},
                {"without_any", difference_json(judgement.without_any)},
                {"reached_the_lock", judgement.reached_the_lock},
                {"held_without_faults", judgement.held_without_faults},
                {"passes_only_with_inert_faults", design.passes_only_with_inert_faults()},
                {"each", each}};
}

Json design_json(const DesignOutcome& design) {
    Json metrics = Json::object();
    for (const auto& name : metric_names()) metrics[name] = design.metrics.value(name);

    Json double_charged = Json::array();
    for (const auto& d : design.metrics.double_charged)
        double_charged.push_back({{"customer", d.customer}, {"period", d.period}, {"charges", d.charges}});
    Json overlaps = Json::array();
    for (const auto& o : design.metrics.overlaps)
        overlaps.push_back({{"key", o.key},
                            {"holders", {design.trace.node_name(o.first), design.trace.node_name(o.second)}},
                            {"from_ns", o.from.ns},
                            {"to_ns", o.to.ns}});
    Json pending = Json::array();
    for (const auto& work : design.metrics.pending) {
        Json item{{"server", design.trace.node_name(work.server)},
                  {"what", work.customer ? "charge request" : "job run"},
                  {"since_ns", work.since.ns}};
        if (work.customer) {
            item["customer"] = *work.customer;
            item["period"] = work.period;
        }
        if (work.frozen_since) item["frozen_since_ns"] = work.frozen_since->ns;
        pending.push_back(std::move(item));
    }
    const Json expectations = expectations_json(design.expectations);
    Json result{{"name", design.name},
                {"purpose", to_string(design.purpose)},
                {"metrics", metrics},
                {"details",
                 {{"double_charged", double_charged},
                  {"overlaps", overlaps},
                  {"overlap_time_ns", design.metrics.overlap_time.ns},
                  {"first_violation_at_ns",
                   design.metrics.first_violation ? Json(design.metrics.first_violation->ns) : Json(nullptr)},
                  {"ended_at_ns", design.summary.ended_at.ns},
                  {"horizon_reached", design.summary.horizon_reached},
                  {"pending_at_end", pending},
                  {"unfinished", design.unfinished()}}},
                {"expectations", expectations},
                {"held", design.held()}};
    if (design.faults) result["faults"] = faults_json(design);
    return result;
}

}  // namespace

Json expectations_json(const std::vector<ExpectationResult>& results) {
    Json expectations = Json::array();
    for (const auto& e : results) {
        Json item{{"metric", e.expectation.metric},
                  {"expected", expected_value(e.expectation)},
                  {"actual", actual_value(e)},
                  {"implied", e.expectation.implied},
                  {"held", e.held}};
        if (!e.found.empty()) item["found"] = e.found;
        expectations.push_back(std::move(item));
    }
    return expectations;
}

Json result_json(const ScenarioOutcome& outcome) {
    Json designs = Json::array();
    for (const auto& design : outcome.designs) designs.push_back(design_json(design));
    // The scenario's words for its things, beside metric names that never change with them.
    const Vocabulary words = outcome.designs.empty() ? Vocabulary{} : vocabulary_of(outcome.designs.front().trace);
    return Json{{"scenario", outcome.name}, {"file", outcome.file},
                {"seed", outcome.seed},     {"vocabulary", vocabulary_json(words)},
                {"designs", designs},       {"held", outcome.held()}};
}

std::string render_result_json(const ScenarioOutcome& outcome) {
    return result_json(outcome).dump(2) + "\n";
}

}  // namespace locksim
