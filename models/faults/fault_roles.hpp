#pragma once
// A fault's target given by role rather than name, resolved when the fault strikes.
// Braces never appear in a node name.
#include <string>
#include <string_view>

namespace locksim {

// Whichever server holds the lock, as the store last granted it.
inline constexpr std::string_view holder_role = "{holder}";
// The node that recorded the event the fault waits for (a fault with "when").
inline constexpr std::string_view trigger_role = "{trigger}";
// The lock store's primary or leader: after a failover or an election, the new one.
inline constexpr std::string_view primary_role = "{primary}";
// Every server at once.
inline constexpr std::string_view servers_role = "{servers}";

// A role as a scenario file names it ({"role": "holder"}) and as words name who plays it.
struct Role {
    std::string_view target;  // "{holder}"
    std::string_view name;    // "holder"
    std::string_view words;   // "the lock holder"
};
inline constexpr Role roles[] = {{holder_role, "holder", "the lock holder"},
                                 {primary_role, "primary", "the store's primary"},
                                 {trigger_role, "trigger", "the node of its event"},
                                 {servers_role, "servers", "every server"}};

// The role `target` names; null for a node's name.
constexpr const Role* role_of(std::string_view target) {
    for (const Role& role : roles)
        if (role.target == target) return &role;
    return nullptr;
}

// A target in words: a node's name, or who plays the role ("the lock holder").
inline std::string target_words(const std::string& target) {
    const Role* role = role_of(target);
    return role ? std::string(role->words) : target;
}

}  // namespace locksim
