#pragma once
// `locksim explore` for a person: per design how many placements broke the lock's
// promise and how, then each window — where it opens and closes, what bounds it, the
// shortest fault that opens it — with the command that replays it.
#include <string>
#include <vector>

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

// What a failed explore gate could not vouch for, each with the command that replays it:
// "first violating placement: …; replay: …" and "first violating region: …; replay: …",
// each when the design has one.
std::vector<std::string> first_violations(const Exploration& exploration, const DesignExploration& design,
                                          const std::string& program);

// The placements that show `kind`, and the regions that do: "78", or "0 + 20 regions". A
// range's regions are not placements, and a 0 beside them must not read as safe.
std::string placements_and_regions(const DesignExploration& design, Metric kind);

// "+40s", "-40s": a clock step's size, its sign always shown.
std::string signed_size_text(Duration size);

// "starts 2.000s to 4.008s, ends 30.001s to 31.200s" (from, up to but not including to).
std::string region_text(const FaultRegion& region);

// One strike point for a person: "after server-1 receives \"1 row\" from billing (t=4.004s)".
std::string describe_strike_point(const DesignExploration& design, std::size_t point);

}  // namespace locksim
