#include "reports/trace_json.hpp"

#include <type_traits>

namespace locksim {

using Json = nlohmann::ordered_json;

Json trace_json(const Trace& trace) {
    Json events = Json::array();
    for (const auto& event : trace.events()) {
        Json fields = Json::object();
        for (const Field field : event.fields()) {
            std::visit(
                [&](const auto& value) {
                    using V = std::decay_t<decltype(value)>;
                    const std::string key(field.key);
                    if constexpr (std::is_same_v<V, Duration> || std::is_same_v<V, Instant>)
                        fields[key + "_ns"] = value.ns;
                    else if constexpr (std::is_same_v<V, NodeId>)
                        fields[key] = trace.node_name(value);
                    else
                        fields[key] = value;
                },
                field.value);
        }
        Json entry{{"seq", event.sequence}, {"t_ns", event.at.ns}, {"node", trace.node_name(event.node)}};
        if (event.node.valid()) {
            entry["wall_ns"] = event.wall.ns;
            entry["mono_ns"] = event.monotonic.ns;
        }
        entry["kind"] = event.kind;
        entry["fields"] = std::move(fields);
        events.push_back(std::move(entry));
    }
    return Json{{"nodes", trace.node_names()}, {"events", events}};
}

std::string render_trace_json(const ScenarioOutcome& outcome) {
    Json designs = Json::array();
    for (const auto& design : outcome.designs) {
        Json trace = trace_json(design.trace);
        designs.push_back(
            Json{{"name", design.name}, {"nodes", trace["nodes"]}, {"events", std::move(trace["events"])}});
    }
    return Json{{"scenario", outcome.name}, {"seed", outcome.seed}, {"designs", designs}}.dump(1) + "\n";
}

}  // namespace locksim
