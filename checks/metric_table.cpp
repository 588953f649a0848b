#include "checks/metric_table.hpp"

namespace locksim {

const MetricSpec* find_metric(std::string_view name) {
    for (const auto& spec : metric_table)
        if (spec.name == name) return &spec;
    return nullptr;
}

const std::vector<std::string>& metric_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> result;
        for (const auto& spec : metric_table) result.emplace_back(spec.name);
        return result;
    }();
    return names;
}

const std::vector<Metric>& violation_metrics() {
    static const std::vector<Metric> violations = [] {
        std::vector<Metric> result;
        for (const auto& spec : metric_table)
            if (spec.violation()) result.push_back(spec.metric);
        return result;
    }();
    return violations;
}

}  // namespace locksim
