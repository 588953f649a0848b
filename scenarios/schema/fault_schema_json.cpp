#include "scenarios/schema/fault_schema_json.hpp"

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <vector>

#include "models/faults/fault.hpp"

namespace locksim {
namespace {

using Json = nlohmann::ordered_json;

// {"$ref": "#/$defs/<definition>"}.
Json defined(std::string_view definition) {
    return Json{{"$ref", fmt::format("#/$defs/{}", definition)}};
}

Json described(std::string_view description, Json schema) {
    Json out{{"description", description}};
    out.update(schema);
    return out;
}

// "clock_step" -> "ClockStep".
std::string pascal_case(std::string_view key) {
    std::string out;
    bool upper = true;
    for (char c : key) {
        if (c == '_') {
            upper = true;
            continue;
        }
        out += upper ? static_cast<char>(c - 'a' + 'A') : c;
        upper = false;
    }
    return out;
}

// "clock_step" -> "clockStepFault", "clockStepGenerator"; "explore" -> "exploreClockStep".
std::string definition_name(std::string_view key, std::string_view suffix) {
    std::string name = pascal_case(key);
    name[0] = static_cast<char>(name[0] - 'A' + 'a');
    return name + std::string(suffix);
}

// "a, b or c".
std::string listed(const std::vector<std::string_view>& keys, std::string_view conjunction) {
    if (keys.size() == 1) return std::string(keys.front());
    return fmt::format("{} {} {}", fmt::join(keys.begin(), keys.end() - 1, ", "), conjunction, keys.back());
}

// What a generator's targets may be (the reader's read_generator_targets).
Json generator_targets() {
    const Json one =
        Json::array({Json{{"enum", Json::array({"servers", "store"})}}, defined("nodeName"), defined("generatorRole")});
    Json any = one;
    any.push_back(Json{{"type", "array"}, {"minItems", 1}, {"items", Json{{"anyOf", one}}}});
    return described(
        "The targets: a node name, \"servers\" (every job server), \"store\" (every node of the lock store), "
        "{\"role\": \"primary\"} or {\"role\": \"holder\"} (resolved when each fault strikes), or a list of these. "
        "Each target gets its own draws, unless at_once; a node named twice (\"servers\" and one of them) is one "
        "target.",
        Json{{"anyOf", any}});
}

// `key`: the entry's key, which names the family and so goes without saying it is required.
Json member_schema(const FaultMember& member, bool drawn, bool key = false) {
    const bool required = drawn ? member.drawn_required : member.required;
    std::string doc(drawn && !member.drawn_doc.empty() ? member.drawn_doc : member.doc);
    if (required && !key) doc += " Required.";
    switch (member.type) {
        case MemberType::target:
            if (drawn) return generator_targets();
            return described(doc +
                                 " Or {\"role\": \"holder\"}: whichever server holds the lock when it strikes "
                                 "(nothing happens if none does).",
                             Json{{"anyOf", Json::array({defined("nodeName"), defined("targetRole")})}});
        case MemberType::node:
            if (drawn) return generator_targets();
            return described(doc, defined("nodeName"));
        case MemberType::sides: {
            const Json node_list = defined("nodeList");
            const Json one_role{{"type", "array"}, {"minItems", 1}, {"maxItems", 1}, {"items", defined("linkRole")}};
            return described(
                doc +
                    " Side a may instead be one role, alone or as [[{\"role\": \"holder\"}], [side b]], resolved "
                    "when it strikes (nothing happens if no one plays it).",
                Json{{"anyOf",
                      Json::array({defined("nodeName"), defined("linkRole"),
                                   Json{{"type", "array"},
                                        {"minItems", 2},
                                        {"maxItems", 2},
                                        {"prefixItems",
                                         Json::array({Json{{"anyOf", Json::array({node_list, one_role})}}, node_list})},
                                        {"items", false}}})}});
        }
        case MemberType::link: {
            const Json link{
                {"type", "array"},
                {"minItems", 2},
                {"maxItems", 2},
                {"uniqueItems", true},
                {"prefixItems", Json::array({Json{{"anyOf", Json::array({defined("nodeName"), defined("linkRole")})}},
                                             defined("nodeName")})},
                {"items", false}};
            doc +=
                " From may instead be a role, [{\"role\": \"holder\"}, to], resolved when it strikes (nothing "
                "happens if no one plays it).";
            if (!drawn) return described(doc, link);
            return described(
                doc + " Or a list of links, [[from, to], …]: each link gets its own draws.",
                Json{{"anyOf",
                      Json::array(
                          {link, Json{{"type", "array"}, {"minItems", 1}, {"uniqueItems", true}, {"items", link}}})}});
        }
        case MemberType::amount:
            if (drawn)
                return described(doc, defined(member.rule.signed_values ? "signedDistribution" : "distribution"));
            return described(doc, defined(member.rule.signed_values ? "signedDuration"
                                          : member.rule.above_zero  ? "positiveDuration"
                                                                    : "duration"));
        case MemberType::odds: return described(doc, defined("odds"));
        case MemberType::flag: return described(doc, Json{{"type", "boolean"}});
        case MemberType::choice: {
            Json choices = Json::array();
            for (std::string_view choice : member.choices) choices.push_back(choice);
            return described(doc, Json{{"enum", choices}});
        }
    }
    return {};
}

Json placed_definition(const FaultEntry& entry) {
    Json properties = Json::object();
    Json required = Json::array();
    for (const FaultMember& member : entry.members) {
        properties[std::string(member.name)] = member_schema(member, false, &member == &entry.members.front());
        if (member.required) required.push_back(member.name);
        if (&member != &entry.members.front()) continue;
        // A placed fault's time follows its key, as files write it.
        properties["at"] = described(
            "True time from midnight at which the fault strikes, a duration. Give \"at\" or \"when\", not both.",
            defined("duration"));
        properties["when"] = described(
            "Instead of \"at\": the trace event that places the fault; it strikes at that instant, after the code "
            "that recorded the event reaches its next wait. Give \"at\" or \"when\", not both.",
            defined("trigger"));
    }
    static_assert(std::size(placed_timing_members) == 2);  // the two written above
    return Json{
        {"description", entry.example},
        {"type", "object"},
        {"properties", properties},
        {"required", required},
        {"additionalProperties", false},
        {"oneOf", Json::array({Json{{"required", Json::array({"at"})}}, Json{{"required", Json::array({"when"})}}})}};
}

Json generator_definition(const FaultEntry& entry) {
    Json properties = Json::object();
    Json required = Json::array({entry.members.front().name, "mean_interval"});
    for (const FaultMember& member : entry.members) {
        properties[std::string(member.name)] = member_schema(member, true, &member == &entry.members.front());
        if (member.drawn_required && &member != &entry.members.front()) required.push_back(member.name);
    }
    properties["mean_interval"] = described(
        "The mean time between faults on each target (a Poisson process), a duration above 0s and at most five years "
        "(43800h, or \"1825d\"; \"30d\" for a fault that comes monthly): the one duration allowed past a week. At "
        "most 10000 faults per target in the window. Required.",
        defined("longPositiveDuration"));
    properties["from"] =
        described("True time at which the window opens, a duration. Default \"0s\".", defined("duration"));
    properties["until"] = described(
        "True time at which the window closes, a duration after from. Default: the horizon; a window written past "
        "the horizon ends at it.",
        defined("duration"));
    properties["at_once"] = described(
        "true: each draw strikes every target (every node or link listed) at the same instant with the same "
        "amounts, as one cause slows or stops them all; mean_interval is then the mean time between draws. Default "
        "false: each target gets its own draws.",
        Json{{"type", "boolean"}});
    static_assert(std::size(generator_window_members) == 4);  // the four written above
    return Json{{"description", entry.generators},
                {"type", "object"},
                {"properties", properties},
                {"required", required},
                {"additionalProperties", false}};
}

// The nodes an explore block's entry may strike (explore_schema.cpp's read_targets), and
// with `roles` the roles it may name ({"role": "holder"}).
Json explore_nodes(std::string_view description, bool roles = false) {
    Json one = Json::array({Json{{"const", "servers"}}, defined("nodeName")});
    if (roles)
        one.push_back(
            Json{{"type", "object"},
                 {"properties", Json{{"role", described("\"holder\": the server holding the lock when the fault "
                                                        "strikes; \"primary\": the store's primary or leader then.",
                                                        Json{{"enum", Json::array({"holder", "primary"})}})}}},
                 {"required", Json::array({"role"})},
                 {"additionalProperties", false}});
    Json any = one;
    any.push_back(Json{{"type", "array"}, {"minItems", 1}, {"items", Json{{"anyOf", one}}}});
    return described(description, Json{{"anyOf", any}});
}

Json explore_definition(const ExploreShape& shape, const FaultEntry& entry) {
    Json properties = Json::object();
    const bool roles = shape.has_end;
    properties[std::string(shape.key)] = explore_nodes(
        roles ? "The nodes it may strike: a node name, a list of them, \"servers\" for every job server (also "
                "inside a list), or a role, {\"role\": \"holder\"} (the server holding the lock when it strikes) "
                "or {\"role\": \"primary\"} (the store's primary or leader then), explored over a range of "
                "lengths (a fault on links cuts the role's player off from the other side). They must be nodes of "
                "every design."
              : "The nodes it may strike: a node name, a list of them, or \"servers\" for every job server (also "
                "inside a list). They must be nodes of every design.",
        roles);
    if (!shape.other_side_field.empty())
        properties[std::string(shape.other_side_field)] = explore_nodes(shape.other_side_doc);
    Json size = defined(shape.size_rule.signed_values ? "exploreSignedSize" : "exploreSize");
    const Json null{{"type", "null"}};
    Json item = shape.size_may_be_null ? Json{{"anyOf", Json::array({null, size})}} : size;
    Json sizes = Json::array();
    if (shape.size_may_be_null) sizes.push_back(null);
    sizes.push_back(size);
    sizes.push_back(Json{{"type", "array"}, {"minItems", 1}, {"items", item}});
    if (shape.has_end) sizes.push_back(defined("exploreLengthRange"));
    if (shape.sized_range) sizes.push_back(defined("exploreSizeRange"));
    properties[std::string(shape.size_field)] = described(shape.size_doc, Json{{"anyOf", sizes}});
    if (shape.has_cause) properties["kind"] = member_schema(*entry.find("kind"), false);
    if (shape.may_be_one_way)
        properties["one_way"] = described(
            "Only what the target sends is cut or lost; it still hears the other side. Default: false, both ways.",
            Json{{"type", "boolean"}});
    if (!shape.odds_field.empty())
        properties[std::string(shape.odds_field)] =
            described("The odds of losing each message, such as \"1/2\". Default \"1/1\": every one.", defined("odds"));
    Json required = Json::array({shape.key});
    if (shape.one_other_node) required.push_back(shape.other_side_field);
    if (!shape.size_may_be_null) required.push_back(shape.size_field);
    return Json{{"description", shape.description},
                {"type", "object"},
                {"properties", properties},
                {"required", required},
                {"additionalProperties", false}};
}

}  // namespace

nlohmann::ordered_json fault_schema_fragments() {
    Json fragments = Json::object();
    Json placed = Json::array(), drawn = Json::array(), explored = Json::array();
    std::vector<std::string_view> on_links;
    for_each_fault_family([&]<class F>(std::type_identity<F>) {
        for (const FaultEntry& entry : F::entries) {
            const std::string fault = definition_name(entry.key, "Fault");
            const std::string generator = definition_name(entry.key, "Generator");
            fragments["/$defs/" + fault] = placed_definition(entry);
            fragments["/$defs/" + generator] = generator_definition(entry);
            placed.push_back(defined(fault));
            drawn.push_back(defined(generator));
            if constexpr (!requires(F f) { f.node; }) on_links.push_back(entry.key);
            for (const ExploreShape& shape : F::explore) {
                if (shape.key != entry.key) continue;
                const std::string name = "explore" + pascal_case(entry.key);
                fragments["/$defs/" + name] = explore_definition(shape, entry);
                explored.push_back(defined(name));
            }
        }
    });
    const std::vector<std::string_view> keys = fault_keys();
    fragments["/properties/faults/description"] = fmt::format(
        "Faults at fixed times (\"at\") or placed by events (\"when\"): {}. Default [].", fmt::join(keys, ", "));
    fragments["/properties/fault_generators/description"] =
        fmt::format("Faults drawn from the seed: generators of {}. Default [].", listed(keys, "or"));
    fragments["/$defs/fault"] = Json{
        {"description", fmt::format("One fault, named by its kind's member: {}; placed by \"at\" (a time) or \"when\" "
                                    "(an event).",
                                    listed(keys, "or"))},
        {"oneOf", placed}};
    fragments["/$defs/faultGenerator"] = Json{
        {"description",
         fmt::format("Faults drawn from the run's seed, at the times of a Poisson process with the mean interval, "
                     "within from ... until: on each target for faults on nodes ({}), on the named link or sides for "
                     "faults between nodes ({}). The draws depend only on the seed, the generator's position and "
                     "the target, so every design meets the same faults.",
                     fmt::join(node_fault_keys(), ", "), fmt::join(on_links, ", "))},
        {"oneOf", drawn}};
    fragments["/$defs/explore/properties/faults/items"] = Json{{"oneOf", explored}};
    fragments["/$defs/linkRole"] =
        Json{{"description",
              "A link fault's end by role, resolved once, when the fault "
              "strikes: {\"role\": \"holder\"} is the server holding the lock then, \"primary\" the lock store's "
              "primary or leader then (not for redlock, in-memory or none), \"trigger\" the node that recorded the "
              "fault's \"when\" event (needs \"when\"). No one plays it: the fault strikes nothing. Its player at "
              "the other end: it cuts nothing between them."},
             {"type", "object"},
             {"properties", Json{{"role", Json{{"description", "holder, primary or trigger."},
                                               {"enum", Json::array({"holder", "primary", "trigger"})}}}}},
             {"required", Json::array({"role"})},
             {"additionalProperties", false}};
    return fragments;
}

}  // namespace locksim
