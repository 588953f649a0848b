#include <fmt/format.h>

#include <algorithm>

#include "scenarios/schema/world_schema.hpp"

namespace locksim {

std::string read_node_ref(const JsonReader& field, const std::vector<std::string>& nodes) {
    std::string name = field.string();
    if (std::find(nodes.begin(), nodes.end(), name) == nodes.end())
        field.fail(fmt::format("unknown node \"{}\"; the nodes are {}", name, fmt::join(nodes, ", ")));
    return name;
}

DelayModel read_delay(const JsonReader& delay) {
    if (delay.json().is_string()) return DelayModel::fixed(delay.duration());
    if (!delay.json().is_object())
        delay.fail("expected a duration such as \"1ms\", {\"uniform\": [\"1ms\", \"3ms\"]} or "
                   "{\"exponential\": {\"min\": \"1ms\", \"mean\": \"2ms\"}}");
    delay.allow_only({"uniform", "exponential"});
    if (delay.has("uniform")) {
        const auto bounds = delay["uniform"].elements();
        if (bounds.size() != 2) delay["uniform"].fail("expected two durations [low, high]");
        const Duration low = bounds[0].duration();
        const Duration high = bounds[1].duration();
        if (high < low) bounds[1].fail("expected the upper bound to be at least the lower bound");
        return DelayModel::uniform(low, high);
    }
    if (delay.has("exponential")) {
        const JsonReader spec = delay["exponential"];
        spec.allow_only({"min", "mean"});
        return DelayModel::exponential(spec["min"].duration(), spec["mean"].duration());
    }
    delay.fail("expected \"uniform\" or \"exponential\"");
}

void read_network(const JsonReader& network, const std::vector<std::string>& nodes, WorldSpec& world) {
    network.allow_only({"delay", "links"});
    world.link_delay = read_delay(network["delay"]);
    if (!network.has("links")) return;
    for (const auto& link : network["links"].elements()) {
        link.allow_only({"between", "delay"});
        const auto ends = link["between"].elements();
        if (ends.size() != 2) link["between"].fail("expected two node names");
        LinkSpec spec{read_node_ref(ends[0], nodes), read_node_ref(ends[1], nodes), read_delay(link["delay"])};
        if (spec.a == spec.b) ends[1].fail("expected two different nodes");
        for (const auto& earlier : world.links)
            if ((earlier.a == spec.a && earlier.b == spec.b) || (earlier.a == spec.b && earlier.b == spec.a))
                link["between"].fail(fmt::format("the link between {} and {} is listed twice", spec.a, spec.b));
        world.links.push_back(std::move(spec));
    }
}

}  // namespace locksim
