#include "scenarios/schema/design_world.hpp"

#include <fmt/format.h>

namespace locksim {
namespace {

// `target` is the world's value where `patch` goes, or null where the world sets nothing.
void refuse_nulls_in(const JsonReader& patch, const Json* target, std::string_view not_world = {}) {
    for (const auto& [key, member] : patch.members()) {
        if (key == not_world) continue;
        const Json* present =
            target != nullptr && target->is_object() && target->contains(key) ? &target->at(key) : nullptr;
        if (member.json().is_null() && present == nullptr)
            member.fail(
                fmt::format("null removes a field of the world, but the world sets no \"{}\" here, so it "
                            "would change nothing; check the name, or leave the null out",
                            message_safe(key)));
        if (member.json().is_object()) refuse_nulls_in(member, present);
    }
}

}  // namespace

Json base_world_json(const Json& document) {
    Json base_world = Json::object();
    for (auto field : world_fields)
        if (document.contains(field)) base_world[std::string(field)] = document[std::string(field)];
    return base_world;
}

Json merged_world_json(const Json& base_world, const Json& overrides) {
    Json merged = base_world;
    merged.merge_patch(overrides);
    return merged;
}

Json design_world_json(const Json& document, const std::string& design) {
    Json overrides = document.at("designs").at(design);
    overrides.erase("expect");
    return merged_world_json(base_world_json(document), overrides);
}

void refuse_nulls_removing_nothing(const JsonReader& design, const Json& base_world) {
    refuse_nulls_in(design, &base_world, "expect");
}

}  // namespace locksim
