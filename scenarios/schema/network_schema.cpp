#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "scenarios/schema/world_schema.hpp"

namespace locksim {

std::string read_node_ref(const JsonReader& field, const std::vector<std::string>& nodes) {
    std::string name = field.string();
    if (std::find(nodes.begin(), nodes.end(), name) == nodes.end())
        field.fail(fmt::format("unknown node \"{}\"; the nodes are {}", name, fmt::join(nodes, ", ")));
    return name;
}

DurationDistribution read_distribution(const JsonReader& field, bool signed_values) {
    const auto value = [signed_values](const JsonReader& f) {
        return signed_values ? f.signed_duration() : f.duration();
    };
    if (field.json().is_string()) return DurationDistribution::fixed(value(field));
    if (!field.json().is_object())
        field.fail(
            "expected a duration such as \"1ms\", or {\"uniform\": [low, high]}, {\"exponential\": mean}, "
            "{\"pareto\": {\"min\", \"alpha\", \"max\"}} or {\"lognormal\": {\"median\", \"sigma\", \"max\"}}");
    field.allow_only({"uniform", "exponential", "pareto", "lognormal"});
    if (field.json().size() != 1)
        field.fail("expected exactly one of \"uniform\", \"exponential\", \"pareto\", \"lognormal\"");
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
