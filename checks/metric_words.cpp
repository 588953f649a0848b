#include "checks/metric_words.hpp"

#include <fmt/format.h>

namespace locksim {
namespace {

std::string in_words(std::string_view text, const Vocabulary& words) {
    return fmt::format(fmt::runtime(text), fmt::arg("effect", words.effect), fmt::arg("effects", words.effects()));
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

}  // namespace locksim
