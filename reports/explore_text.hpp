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

// The command that replays one placement (its faults at their strike points) or a region's
// example fault (at its start, for its length) with `run --faults`.
std::string placement_replay(const Exploration& exploration, const DesignExploration& design, const FaultChoice& choice,
                             const std::string& program);
std::string region_replay(const Exploration& exploration, const DesignExploration& design, const FaultRegion& region,
                          const std::string& program);

// "+40s", "-40s": a clock step's size, its sign always shown.
std::string signed_size_text(Duration size);

// "starts 2.000s to 4.008s, ends 30.001s to 31.200s" (from, up to but not including to).
std::string region_text(const FaultRegion& region);

// One strike point for a person: "after server-1 receives \"1 row\" from billing (t=4.004s)".
std::string describe_strike_point(const DesignExploration& design, std::size_t point);

}  // namespace locksim
