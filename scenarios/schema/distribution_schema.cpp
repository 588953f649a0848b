#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "scenarios/schema/sample_file.hpp"
#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"
#include "sim/observed_distribution.hpp"

namespace locksim {
namespace {

// "p99.9" -> 999'000'000 parts per billion; nullopt unless it is "p" and a percentage above
// 0 and below 100 with at most seven decimals.
std::optional<std::uint32_t> quantile_probability(std::string_view key) {
    if (key.size() < 2 || key.front() != 'p') return std::nullopt;
    key.remove_prefix(1);
    const auto point = key.find('.');
    const std::string_view whole = key.substr(0, point);
    const std::string_view fraction = point == std::string_view::npos ? std::string_view{} : key.substr(point + 1);
    const auto digits = [](std::string_view text) {
        return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (!digits(whole) || whole.size() > 2 ||
        (point != std::string_view::npos && (!digits(fraction) || fraction.size() > 7)))
        return std::nullopt;
    std::uint64_t ppb = 0;
    for (char c : whole) ppb = ppb * 10 + static_cast<std::uint64_t>(c - '0');
    ppb *= 10'000'000;
    std::uint64_t scale = 1'000'000;
    for (char c : fraction) {
        ppb += static_cast<std::uint64_t>(c - '0') * scale;
        scale /= 10;
    }
    if (ppb == 0 || ppb >= probability_scale) return std::nullopt;
    return static_cast<std::uint32_t>(ppb);
}

// {"min": "0s", "p50": "20ms", "p95": "200ms", "p99.9": "4s", "max": "30s"}: what people
// measure, as points of the distribution function; "min" defaults to 0s, "max" is needed.
DurationDistribution read_quantiles(const JsonReader& spec) {
    if (!spec.json().is_object())
        spec.fail("expected quantiles such as {\"p50\": \"20ms\", \"p99.9\": \"4s\", \"max\": \"30s\"}");
    std::vector<QuantilePoint> points{{0, Duration{}}};
    bool has_max = false;
    for (const auto& [key, value] : spec.members()) {
        if (key == "min") {
            points.front().value = value.duration();
            continue;
        }
        if (key == "max") {
            has_max = true;
            continue;
        }
        const auto probability = quantile_probability(key);
        if (!probability)
            value.fail(
                fmt::format("unknown quantile \"{}\"; expected \"min\", \"max\" or a percentile such as \"p50\", "
                            "\"p95\", \"p99.9\" (above 0 and below 100)",
                            message_safe(key)));
        points.push_back(QuantilePoint{*probability, value.duration()});
    }
    if (!has_max) spec.fail("expected \"max\": the longest duration drawn, so that no draw runs past the horizon");
    points.push_back(QuantilePoint{probability_scale, spec["max"].duration()});
    std::stable_sort(points.begin() + 1, points.end() - 1,
                     [](const QuantilePoint& a, const QuantilePoint& b) { return a.probability < b.probability; });
    for (std::size_t i = 1; i < points.size(); ++i) {
        if (points[i].probability == points[i - 1].probability) spec.fail("the same percentile is given twice");
        if (points[i].value < points[i - 1].value)
            spec.fail(fmt::format("expected durations that do not fall as the percentile rises; {} is below {}",
                                  format_duration(points[i].value), format_duration(points[i - 1].value)));
    }
    return DurationDistribution::quantiles(std::move(points));
}

// [{"up_to": "10ms", "count": 950}, …] or {"min": "1ms", "buckets": […]}: how often each
// range of durations was observed ("min" defaults to 0s).
DurationDistribution read_histogram(const JsonReader& spec) {
    JsonReader list = spec;
    Duration minimum{};
    if (spec.json().is_object()) {
        spec.allow_only({"min", "buckets"});
        if (spec.has("min")) minimum = spec["min"].duration();
        list = spec["buckets"];
    } else if (!spec.json().is_array()) {
        spec.fail(
            "expected buckets such as [{\"up_to\": \"10ms\", \"count\": 950}, {\"up_to\": \"4s\", \"count\": 5}], or "
            "{\"min\": \"1ms\", \"buckets\": […]}");
    }
    const auto items = list.elements();
    if (items.empty()) list.fail("expected at least one bucket, such as {\"up_to\": \"10ms\", \"count\": 950}");
    std::vector<HistogramBucket> buckets;
    std::uint64_t total = 0;
    for (const auto& item : items) {
        item.allow_only({"up_to", "count"});
        const HistogramBucket bucket{item["up_to"].duration(), item["count"].unsigned_integer()};
        if (buckets.empty() && bucket.up_to < minimum)
            spec["min"].fail(
                fmt::format("expected a minimum at most the first bucket's bound, {}", format_duration(bucket.up_to)));
        if (!buckets.empty() && bucket.up_to <= buckets.back().up_to)
            item["up_to"].fail(fmt::format("expected bucket bounds that rise; {} is not above the previous bound, {}",
                                           format_duration(bucket.up_to), format_duration(buckets.back().up_to)));
        if (bucket.count > std::numeric_limits<std::uint64_t>::max() - total)
            item["count"].fail("the counts add up to more than 2^64 - 1");
        total += bucket.count;
        buckets.push_back(bucket);
    }
    if (total == 0) list.fail("every bucket's count is 0; expected at least one observation");
    return histogram_distribution(minimum, buckets);
}

// "gc-pauses.txt" or {"file": "gc-pauses.txt", "unit": "ms"}: every duration observed, one
// per line; with "unit", each line is a bare number in that unit.
DurationDistribution read_observed(const JsonReader& spec) {
    if (spec.json().is_string()) return sample_distribution(read_sample_file(spec, spec.string(), std::nullopt));
    if (!spec.json().is_object())
        spec.fail("expected a file name such as \"gc-pauses.txt\", or {\"file\": \"gc-pauses.txt\", \"unit\": \"ms\"}");
    spec.allow_only({"file", "unit"});
    std::optional<std::string> unit;
    if (spec.has("unit")) {
        unit = spec["unit"].string();
        if (!is_duration_unit(*unit))
            spec["unit"].fail(
                fmt::format("unknown unit \"{}\"; expected \"ns\", \"us\", \"ms\", \"s\", \"m\", \"min\" or \"h\"",
                            message_safe(*unit)));
    }
    const JsonReader file = spec["file"];
    return sample_distribution(read_sample_file(file, file.string(), unit));
}

}  // namespace

DurationDistribution read_distribution(const JsonReader& field, bool signed_values) {
    const auto value = [signed_values](const JsonReader& f) {
        return signed_values ? f.signed_duration() : f.duration();
    };
    if (field.json().is_string()) return DurationDistribution::fixed(value(field));
    if (!field.json().is_object())
        field.fail(
            "expected a duration such as \"1ms\", or {\"uniform\": [low, high]}, {\"exponential\": mean}, "
            "{\"pareto\": {\"min\", \"alpha\", \"max\"}}, {\"lognormal\": {\"median\", \"sigma\", \"max\"}}, "
            "{\"quantiles\": {\"p50\": …, \"p99.9\": …, \"max\": …}}, {\"histogram\": [{\"up_to\": …, \"count\": …}, "
            "…]} "
            "or {\"observed\": \"file of durations\"}");
    field.allow_only({"uniform", "exponential", "pareto", "lognormal", "quantiles", "histogram", "observed"});
    if (field.json().size() != 1)
        field.fail(
            "expected exactly one of \"uniform\", \"exponential\", \"pareto\", \"lognormal\", \"quantiles\", "
            "\"histogram\", \"observed\"");
    if (field.has("uniform")) {
        const auto bounds = field["uniform"].elements();
        if (bounds.size() != 2) field["uniform"].fail("expected two durations [low, high]");
        const Duration low = value(bounds[0]);
        const Duration high = value(bounds[1]);
        if (high < low) bounds[1].fail("expected the upper bound to be at least the lower bound");
        return DurationDistribution::uniform(low, high);
    }
    if (signed_values) field.fail("expected a fixed duration or a uniform range for a value that may be negative");
    if (field.has("exponential")) {
        const JsonReader spec = field["exponential"];
        if (spec.json().is_string()) return DurationDistribution::exponential(Duration{}, spec.duration());
        spec.allow_only({"min", "mean"});
        return DurationDistribution::exponential(spec.has("min") ? spec["min"].duration() : Duration{},
                                                 spec["mean"].duration());
    }
    const auto shape = [](const JsonReader& f, double low, double high) {
        const double x = f.number();
        if (!(x > low && x <= high)) f.fail(fmt::format("expected a number above {} and at most {}", low, high));
        return x;
    };
    if (field.has("quantiles")) return read_quantiles(field["quantiles"]);
    if (field.has("histogram")) return read_histogram(field["histogram"]);
    if (field.has("observed")) return read_observed(field["observed"]);
    if (field.has("pareto")) {
        const JsonReader spec = field["pareto"];
        spec.allow_only({"min", "alpha", "max"});
        const Duration minimum = spec["min"].duration();
        const Duration cap = spec["max"].duration();
        if (minimum.ns <= 0) spec["min"].fail("expected a minimum above 0s");
        if (cap < minimum) spec["max"].fail("expected max to be at least min");
        return DurationDistribution::pareto(minimum, shape(spec["alpha"], 0, 10), cap);
    }
    const JsonReader spec = field["lognormal"];
    spec.allow_only({"median", "sigma", "max"});
    const Duration median = spec["median"].duration();
    const Duration cap = spec["max"].duration();
    if (cap < median) spec["max"].fail("expected max to be at least the median");
    const double sigma = spec["sigma"].number();
    if (!(sigma >= 0 && sigma <= 5)) spec["sigma"].fail("expected a sigma from 0 to 5");
    return DurationDistribution::lognormal(median, sigma, cap);
}

}  // namespace locksim
