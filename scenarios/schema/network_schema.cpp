#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "scenarios/schema/world_schema.hpp"
#include "sim/whole_number.hpp"

namespace locksim {

std::string read_node_ref(const JsonReader& field, const std::vector<std::string>& nodes) {
    std::string name = field.string();
    if (std::find(nodes.begin(), nodes.end(), name) == nodes.end())
        field.fail(fmt::format("unknown node \"{}\"; the nodes are {}", name, fmt::join(nodes, ", ")));
    return name;
}

Odds read_odds(const JsonReader& field) {
    // Two whole numbers as a person types them (sim/whole_number.hpp): scanf would take "-1"
    // or "+1" and wrap 2^64.
    constexpr std::uint64_t finest = 1'000'000'000;  // one in a billion
    const std::string text = field.string();
    const std::size_t slash = text.find('/');
    // Spaces around the numbers are allowed (the JSON Schema says so), nothing else.
    const auto number = [](std::string_view part) {
        while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
        while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
        return parse_whole_number(part);
    };
    const std::optional<std::uint64_t> numerator =
        slash == std::string::npos ? std::nullopt : number(std::string_view(text).substr(0, slash));
    const std::optional<std::uint64_t> denominator =
        slash == std::string::npos ? std::nullopt : number(std::string_view(text).substr(slash + 1));
    if (!numerator || !denominator || *denominator == 0 || *numerator > *denominator)
        field.fail(fmt::format("expected odds such as \"1/100\" (at most 1/1), got \"{}\"", text));
    if (*denominator > finest)
        field.fail(fmt::format(
            "expected odds no finer than one in a billion (a second number of at most {}), got \"{}\"", finest, text));
    return Odds{*numerator, *denominator};
}

namespace {

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
