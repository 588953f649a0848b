#include "sim/trace_schema.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cstdint>

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

StoredFields store_fields(const KindSpec& kind, std::span<const Field> fields,
                          std::span<FieldWord, max_fields_per_event> values,
                          std::span<std::string_view, max_fields_per_event> texts, bool every_required) {
    // One pass over the fields, marking which declared field each one is: it runs for
    // every event recorded.
    StoredFields stored;
    if (fields.size() > max_fields_per_event) {
        stored.problem =
            fmt::format("{} events have at most {} fields, not {}", kind.name, max_fields_per_event, fields.size());
        return stored;
    }
    std::uint32_t seen = 0;
    std::size_t next = 0;  // fields are mostly given in the order declared: look there first
    for (const Field& given : fields) {
        std::size_t at = next < kind.fields.size() && kind.fields[next].name == given.key ? next : 0;
        while (at < kind.fields.size() && kind.fields[at].name != given.key) ++at;
        next = at + 1;
        if (at == kind.fields.size()) {
            stored.problem = fmt::format("{} events have no field \"{}\"", kind.name, given.key);
            return stored;
        }
        const FieldSpec& spec = kind.fields[at];
        if (given.value.index() != static_cast<std::size_t>(spec.type)) {
            stored.problem = fmt::format("{}.{} must be {}, not {}", kind.name, given.key, type_name(spec.type),
                                         type_name(static_cast<FieldType>(given.value.index())));
            return stored;
        }
        if (seen & (1u << at)) {
            stored.problem = fmt::format("{}.{} is given twice", kind.name, given.key);
            return stored;
        }
        seen |= 1u << at;
        const std::size_t place = stored.keys.size();
        values[place] = FieldWord::of(given.value, texts[place]);
        stored.keys.push_back(at);
    }
    for (std::size_t at = 0; every_required && at < kind.fields.size(); ++at) {
        const FieldSpec& spec = kind.fields[at];
        if (!spec.optional && !(seen & (1u << at))) {
            stored.problem = fmt::format("{} events need \"{}\" ({})", kind.name, spec.name, type_name(spec.type));
            return stored;
        }
    }
    return stored;
}

}  // namespace locksim
