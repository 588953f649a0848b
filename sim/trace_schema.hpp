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

struct KindSpec {
    std::string_view name;  // "lock.granted"
    std::string_view meaning;
    std::span<const FieldSpec> fields;

    // Kinds are compared and printed by name.
    constexpr operator std::string_view() const { return name; }
    const FieldSpec* field(std::string_view key) const;
};

// A kind declares at most this many fields (the check marks them in a 64-bit set), so an
// event has at most this many.
inline constexpr std::size_t max_fields_per_event = 64;

}  // namespace locksim
