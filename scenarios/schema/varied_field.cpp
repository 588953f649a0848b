#include "scenarios/schema/varied_field.hpp"

#include <fmt/format.h>

namespace locksim {

std::optional<std::string> varied_pointer(const std::string& path) {
    if (path.empty()) return std::nullopt;
    std::string pointer = path;
    for (auto& c : pointer)
        if (c == '.') c = '/';
    if (pointer.front() != '/') pointer.insert(0, "/");
    try {
        (void)Json::json_pointer(pointer);
    } catch (const Json::exception&) {
        return std::nullopt;
    }
    return pointer;
}

Json varied_value(const std::string& written) {
    const Json parsed = Json::parse(written, nullptr, false);
    return parsed.is_discarded() ? Json(written) : parsed;
}

std::string varied_text(const Json& value) {
    // A string that would read back as other JSON ("3", "true") keeps its quotes.
    if (value.is_string() && varied_value(value.get<std::string>()) == value) return value.get<std::string>();
    return value.dump();
}

std::string overlap_reason(const VariedField& field, const VariedField& other, const std::string& by) {
    const auto inside = [](const VariedField& inner, const VariedField& outer) {
        return inner.pointer.starts_with(outer.pointer + "/");
    };
    if (field.pointer == other.pointer)
        return fmt::format("{} is varied already, by {}; give each field once, with all its values", field.path, by);
    if (inside(field, other))
        return fmt::format("{} is inside {}, which {} varies too; vary one or the other", field.path, other.path, by);
    if (inside(other, field))
        return fmt::format("{} holds {}, which {} varies too; vary one or the other", field.path, other.path, by);
    return "";
}

std::string unsettable_reason(const Json& document, const std::string& pointer) {
    const Json::json_pointer place(pointer);
    if (place.empty()) return "give the path of one field, such as lock.ttl";
    const Json::json_pointer parent = place.parent_pointer();
    if (document.contains(parent) && document.at(parent).is_object()) return "";
    return fmt::format("the file has no object at {} to set \"{}\" in",
                       parent.to_string().empty() ? "/" : parent.to_string(), message_safe(place.back()));
}

}  // namespace locksim
