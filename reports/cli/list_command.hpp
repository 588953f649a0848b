#pragma once
// `locksim list [PATH…]`: the scenario library, in the order the seed tells it.
#include <string>
#include <vector>

namespace locksim {

// 0, or 2 if a path or file could not be used (the others are still listed).
int list_command(const std::vector<std::string>& paths);

}  // namespace locksim
