#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string_view>

#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

std::string read_node_ref(const JsonReader& field, const std::vector<std::string>& nodes) {
    std::string name = field.string();
    if (std::find(nodes.begin(), nodes.end(), name) == nodes.end())
        field.fail(fmt::format("unknown node \"{}\"; the nodes are {}", name, fmt::join(nodes, ", ")));
    return name;
}

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

}  // namespace

DurationDistribution read_distribution(const JsonReader& field, bool signed_values) {
    const auto value = [signed_values](const JsonReader& f) {
        return signed_values ? f.signed_duration() : f.duration();
    };
    if (field.json().is_string()) return DurationDistribution::fixed(value(field));
    if (!field.json().is_object())
        field.fail(
            "expected a duration such as \"1ms\", or {\"uniform\": [low, high]}, {\"exponential\": mean}, "
            "{\"pareto\": {\"min\", \"alpha\", \"max\"}}, {\"lognormal\": {\"median\", \"sigma\", \"max\"}} or "
            "{\"quantiles\": {\"p50\": …, \"p99.9\": …, \"max\": …}}");
    field.allow_only({"uniform", "exponential", "pareto", "lognormal", "quantiles"});
    if (field.json().size() != 1)
        field.fail("expected exactly one of \"uniform\", \"exponential\", \"pareto\", \"lognormal\", \"quantiles\"");
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

namespace {

// "1/100": integer odds of something happening to a message.
Odds read_odds(const JsonReader& field) {
    const std::string text = field.string();
    unsigned long long numerator = 0, denominator = 0;
    char slash = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%llu %c %llu %c", &numerator, &slash, &denominator, &extra) != 3 || slash != '/' ||
        denominator == 0 || numerator > denominator || denominator > 1'000'000'000)
        field.fail(fmt::format("expected odds such as \"1/100\" (at most 1/1), got \"{}\"", text));
    return Odds{numerator, denominator};
}

LinkBehaviour read_behaviour(const JsonReader& spec, LinkBehaviour behaviour) {
    if (spec.has("loss")) behaviour.loss = read_odds(spec["loss"]);
    if (spec.has("duplicate")) behaviour.duplication = read_odds(spec["duplicate"]);
    if (spec.has("reorder")) behaviour.reorder = spec["reorder"].boolean();
    return behaviour;
}

}  // namespace

void read_network(const JsonReader& network, const std::vector<std::string>& nodes, WorldSpec& world) {
    network.allow_only({"delay", "links", "loss", "duplicate", "reorder"});
    world.link_delay = read_distribution(network["delay"]);
    world.link_behaviour = read_behaviour(network, {});
    if (!network.has("links")) return;
    for (const auto& link : network["links"].elements()) {
        link.allow_only({"between", "delay", "loss", "duplicate", "reorder"});
        const auto ends = link["between"].elements();
        if (ends.size() != 2) link["between"].fail("expected two node names");
        LinkSpec spec{read_node_ref(ends[0], nodes), read_node_ref(ends[1], nodes),
                      link.has("delay") ? read_distribution(link["delay"]) : world.link_delay,
                      read_behaviour(link, world.link_behaviour)};
        if (spec.a == spec.b) ends[1].fail("expected two different nodes");
        for (const auto& earlier : world.links)
            if ((earlier.a == spec.a && earlier.b == spec.b) || (earlier.a == spec.b && earlier.b == spec.a))
                link["between"].fail(fmt::format("the link between {} and {} is listed twice", spec.a, spec.b));
        world.links.push_back(std::move(spec));
    }
}

}  // namespace locksim
