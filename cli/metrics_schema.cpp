#include "cli/metrics_schema.hpp"

#include <string>
#include <string_view>
#include <vector>

#include "checks/exploration.hpp"
#include "checks/metric_table.hpp"
#include "checks/sweep_summary.hpp"

namespace locksim {
namespace {

using Json = nlohmann::ordered_json;

// The schema's definition of an expectation of a metric: a count, or bounds, and for a
// run's detail the who it may pin.
std::string_view expectation_definition(MetricDetail detail) {
    switch (detail) {
        case MetricDetail::none: return "expectation";
        case MetricDetail::customers: return "doubleChargesExpectation";
        case MetricDetail::holders: return "overlapsExpectation";
    }
    return "expectation";
}

Json property(std::string_view meaning, std::string_view definition) {
    return Json{{"description", meaning}, {"$ref", "#/$defs/" + std::string(definition)}};
}

Json totals_properties(const std::vector<TotalSpec>& totals) {
    Json properties = Json::object();
    for (const auto& total : totals) properties[total.name] = property(total.meaning, "expectation");
    return properties;
}

}  // namespace

nlohmann::ordered_json schema_metric_lists() {
    Json run = Json::object();
    for (const auto& spec : metric_table)
        run[std::string(spec.name)] = property(spec.meaning, expectation_definition(spec.detail));
    return Json{
        {"/$defs/expect/properties", run},
        {"/$defs/sweepBlock/properties/expect/additionalProperties/properties", totals_properties(sweep_totals())},
        {"/$defs/exploreExpect/properties", totals_properties(explore_totals())}};
}

}  // namespace locksim
