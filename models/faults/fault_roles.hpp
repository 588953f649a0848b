#pragma once
// A fault's target given by role rather than name, resolved when the fault strikes.
// Braces never appear in a node name.
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

}  // namespace locksim
