#include "checks/metric_words.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <vector>

#include "checks/verdict.hpp"

namespace locksim {
namespace {

std::string in_words(std::string_view text, const Vocabulary& words) {
    return fmt::format(fmt::runtime(text), fmt::arg("effect", words.effect), fmt::arg("effects", words.effects()),
                       fmt::arg("effected", words.effected()), fmt::arg("item", words.item),
                       fmt::arg("items", words.items()));
}

}  // namespace

std::string metric_one(Metric metric, const Vocabulary& words) {
    return in_words(metric_spec(metric).one, words);
}

std::string metric_many(Metric metric, const Vocabulary& words) {
    return in_words(metric_spec(metric).many, words);
}

std::string metric_counted(Metric metric, std::int64_t count, const Vocabulary& words) {
    return fmt::format("{} {}", count, count == 1 ? metric_one(metric, words) : metric_many(metric, words));
}

std::string metric_heading(Metric metric, const Vocabulary& words) {
    const std::string many = metric_many(metric, words);
    return metric_spec(metric).unit == MetricUnit::milliseconds ? many + " ms" : many;
}

std::string expected_metric_words(std::string_view name, const Vocabulary& words) {
    const MetricSpec* spec = find_metric(name);
    if (spec == nullptr || words == Vocabulary::defaults()) return std::string(name);
    return in_words(spec->many, words);
}

std::string violations_in_words(std::uint32_t violations, const Vocabulary& words) {
    std::vector<std::string> names;
    for (const Metric metric : violated_metrics(violations)) names.push_back(metric_one(metric, words));
    return fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace locksim
