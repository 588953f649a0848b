#include "reports/result_json.hpp"

namespace locksim {
namespace {

using Json = nlohmann::ordered_json;

Json expected_value(const Expectation& expectation) {
    switch (expectation.comparison) {
        case Expectation::Comparison::equals: return expectation.value;
        case Expectation::Comparison::at_least: return Json{{"at_least", expectation.value}};
        case Expectation::Comparison::at_most: return Json{{"at_most", expectation.value}};
    }
    return expectation.value;
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
    const Json expectations = expectations_json(design.expectations);
    return Json{{"name", design.name},
                {"purpose", to_string(design.purpose)},
                {"metrics", metrics},
                {"details",
                 {{"double_charged", double_charged},
                  {"overlaps", overlaps},
                  {"overlap_time_ns", design.metrics.overlap_time.ns},
                  {"ended_at_ns", design.summary.ended_at.ns},
                  {"horizon_reached", design.summary.horizon_reached}}},
                {"expectations", expectations},
                {"held", design.held()}};
}

}  // namespace

Json expectations_json(const std::vector<ExpectationResult>& results) {
    Json expectations = Json::array();
    for (const auto& e : results)
        expectations.push_back({{"metric", e.expectation.metric},
                                {"expected", expected_value(e.expectation)},
                                {"actual", e.actual},
                                {"implied", e.expectation.implied},
                                {"held", e.held}});
    return expectations;
}

Json result_json(const ScenarioOutcome& outcome) {
    Json designs = Json::array();
    for (const auto& design : outcome.designs) designs.push_back(design_json(design));
    return Json{{"scenario", outcome.name},
                {"file", outcome.file},
                {"seed", outcome.seed},
                {"designs", designs},
                {"held", outcome.held()}};
}

std::string render_result_json(const ScenarioOutcome& outcome) {
    return result_json(outcome).dump(2) + "\n";
}

}  // namespace locksim
