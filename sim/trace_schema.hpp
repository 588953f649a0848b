#pragma once
// The trace's vocabulary, declared once: every kind of event, what it means, and each of
// its fields with a type and whether it may be left out. The engine checks every recorded
// event against its kind (a missing or ill-typed field is a bug in the code that recorded
// it, caught where it happens); the fault triggers, the checkers, the trace writers, the
// JSON Schema of scenario files and docs/outputs.md's table of kinds all read these tables.
//
// The engine declares the kinds it records itself (sim/trace.hpp); the models
// declare theirs (models/trace_kinds.hpp). Names and keys are string literals, so an
// event costs no allocation for them.
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace locksim {

// In the order of FieldView's and FieldValue's alternatives (sim/trace.hpp), which the engine's
// check relies on.
enum class FieldType : std::uint8_t { integer, flag, text, duration, instant, node };

std::string_view type_name(FieldType type);

struct FieldSpec {
    std::string_view name;
    FieldType type;
    bool optional = false;
    std::string_view meaning = {};
};

// A kind declares at most this many fields, so that which of them an event has, in the
// order given, fits in 32 bits beside the event's node (FieldKeys, sim/trace.hpp).
inline constexpr std::size_t max_fields_per_event = 8;

struct KindSpec {
    std::string_view name;  // "lock.granted"
    std::string_view meaning;
    std::span<const FieldSpec> fields;

    // Kinds are declared constexpr, so a kind of too many fields does not compile.
    constexpr KindSpec(std::string_view name, std::string_view meaning, std::span<const FieldSpec> fields)
        : name(name), meaning(meaning), fields(fields) {
        if (fields.size() > max_fields_per_event) throw std::length_error("a kind declares at most 8 fields");
    }

    // Kinds are compared and printed by name.
    constexpr operator std::string_view() const { return name; }
    const FieldSpec* field(std::string_view key) const;
};

}  // namespace locksim
