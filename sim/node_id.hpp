#pragma once
#include <compare>
#include <cstdint>

namespace locksim {

// Index of a node in its world, in the order the scenario declared the nodes.
struct NodeId {
    std::uint32_t index = UINT32_MAX;

    constexpr auto operator<=>(const NodeId&) const = default;
    constexpr bool valid() const { return index != UINT32_MAX; }
};

// For events that belong to the world rather than to a node (a fault's start, say).
constexpr NodeId no_node{};

}  // namespace locksim
