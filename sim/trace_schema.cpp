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

std::optional<std::string> nonconforming(const KindSpec& kind, std::span<const Field> fields) {
    // One pass over the fields, marking which declared field each one is: it runs for
    // every event recorded. A kind declares at most 64 fields.
    assert(kind.fields.size() <= 64);
    std::uint64_t seen = 0;
    for (const Field& given : fields) {
        std::size_t at = 0;
        while (at < kind.fields.size() && kind.fields[at].name != given.key) ++at;
        if (at == kind.fields.size()) return fmt::format("{} events have no field \"{}\"", kind.name, given.key);
        const FieldSpec& spec = kind.fields[at];
        if (given.value.index() != static_cast<std::size_t>(spec.type))
            return fmt::format("{}.{} must be {}, not {}", kind.name, given.key, type_name(spec.type),
                               type_name(static_cast<FieldType>(given.value.index())));
        if (seen & (std::uint64_t{1} << at)) return fmt::format("{}.{} is given twice", kind.name, given.key);
        seen |= std::uint64_t{1} << at;
    }
    for (std::size_t at = 0; at < kind.fields.size(); ++at) {
        const FieldSpec& spec = kind.fields[at];
        if (!spec.optional && !(seen & (std::uint64_t{1} << at)))
            return fmt::format("{} events need \"{}\" ({})", kind.name, spec.name, type_name(spec.type));
    }
    return std::nullopt;
}

}  // namespace locksim
