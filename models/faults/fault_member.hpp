#pragma once
// What a family's entry in a scenario file may hold, declared once as data: its key and
// its members, each with its type, whether it is required and the sentence that explains
// it. read() reads through the declaration (the reader refuses every other member and
// holds an amount to its rule), and the JSON Schema's fault entries are printed from it
// (scenarios/schema/fault_schema_json.hpp), so the two cannot drift apart.
#include <span>
#include <string_view>

#include "sim/time.hpp"

namespace locksim {

// What an amount may be: the reader checks a fixed value, or a drawn distribution's
// bounds, against it.
struct AmountRule {
    bool signed_values = false;  // a clock may step back
    // A fault's fixed amount must be above zero (a pause of 0s pauses nothing). Drawn
    // amounts are not held to it: a draw of 0 is a fault that does nothing.
    bool above_zero = false;
    std::string_view above_zero_help;
    // |amount| at most this (0: no bound), with the sentence that says why.
    Duration bound{};
    std::string_view bound_help;

    // Whether amounts from `low` to `high` go past the bound either way.
    constexpr bool beyond(Duration low, Duration high) const { return bound.ns > 0 && (low < -bound || high > bound); }
};

enum class MemberType {
    target,  // a node's name or {"role": …}; in a generator, a list of targets
    node,    // a node's name; in a generator, a list of targets
    sides,   // [[side a], [side b]], or one node's name cut off from every other node
    link,    // [from, to], two different nodes
    amount,  // a duration; in a generator, a distribution (`rule` says which)
    odds,    // "1/2"
    flag,    // true or false; absent: false
    choice,  // one of `choices`
};

struct FaultMember {
    std::string_view name;
    MemberType type;
    bool required = false;        // in a placed fault
    bool drawn_required = false;  // in a generator
    AmountRule rule{};            // an amount's
    std::span<const std::string_view> choices{};
    std::string_view doc;        // what it is, in a placed fault; "Required." is added when it is
    std::string_view drawn_doc;  // in a generator, if it says something else
};

// One key a family is written with, and its members; the first member is the key's own
// (what the fault strikes).
struct FaultEntry {
    std::string_view key;         // "pause"
    std::string_view example;     // a placed fault, written out, and what it is
    std::string_view generators;  // what a generator of it draws
    std::span<const FaultMember> members;

    // The declared member `name`; null if the entry has none.
    constexpr const FaultMember* find(std::string_view name) const {
        for (const FaultMember& m : members)
            if (m.name == name) return &m;
        return nullptr;
    }
};

}  // namespace locksim
