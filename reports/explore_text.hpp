#pragma once
// `locksim explore` for a person: per design how many placements broke the lock's
// promise and how, then each window — where it opens and closes, what bounds it, the
// shortest fault that opens it — with the command that replays it.
#include <string>

#include "checks/exploration.hpp"
#include "reports/text_style.hpp"

namespace locksim {

// `program`: how locksim was invoked, for the replay commands.
std::string render_explore_text(const Exploration& exploration, const std::string& program, const TextStyle& style);

// One strike point for a person: "after server-1 receives \"1 row\" from billing (t=4.004s)".
std::string describe_strike_point(const DesignExploration& design, std::size_t point);

}  // namespace locksim
