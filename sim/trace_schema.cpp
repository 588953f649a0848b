#include "sim/trace_schema.hpp"

#include <fmt/format.h>

#include "sim/trace.hpp"

namespace locksim {

std::string_view type_name(FieldType type) {
    switch (type) {
        case FieldType::integer: return "integer";
        case FieldType::flag: return "flag";
        case FieldType::text: return "text";
        case FieldType::duration: return "duration";
        case FieldType::instant: return "instant";
        case FieldType::node: return "node";
    }
    return "?";
}

const FieldSpec* KindSpec::field(std::string_view key) const {
    for (const auto& spec : fields)
        if (spec.name == key) return &spec;
    return nullptr;
}

std::optional<std::string> nonconforming(const KindSpec& kind, std::span<const Field> fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
        const Field& given = fields[i];
        const FieldSpec* spec = kind.field(given.key);
        if (spec == nullptr) return fmt::format("{} events have no field \"{}\"", kind.name, given.key);
        if (given.value.index() != static_cast<std::size_t>(spec->type))
            return fmt::format("{}.{} must be {}, not {}", kind.name, given.key, type_name(spec->type),
                               type_name(static_cast<FieldType>(given.value.index())));
        for (std::size_t j = 0; j < i; ++j)
            if (fields[j].key == given.key) return fmt::format("{}.{} is given twice", kind.name, given.key);
    }
    for (const auto& spec : kind.fields) {
        if (spec.optional) continue;
        bool present = false;
        for (const auto& given : fields) present = present || given.key == spec.name;
        if (!present) return fmt::format("{} events need \"{}\" ({})", kind.name, spec.name, type_name(spec.type));
    }
    return std::nullopt;
}

}  // namespace locksim
