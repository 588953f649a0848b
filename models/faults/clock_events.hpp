#pragma once
// The clock fault's trace events read back: what a clock.stepped or clock.slewing event
// did to its node's wall clock, and the words for it. The family's other half
// (clock_step_fault.hpp) makes them happen; checkers and reports, which read only the
// trace, ask here instead of matching the kinds themselves.
#include <string>
#include <string_view>

#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

// Whether `event` changed its node's wall clock: a step, or the start of a slew.
bool changes_wall_clock(const TraceEvent& event);

// How far `event` had moved its node's wall clock by the true time `t`: a step all at
// once, a slew at 500 ppm until the whole correction is made.
// REQUIRES: changes_wall_clock(event), t >= event.at.
Duration wall_clock_moved(const TraceEvent& event, Instant t);

// The event in a timeline: "wall clock steps from 09:00:10.000 to 09:00:15.000", "NTP
// slews its wall clock by 100ms over 20s". REQUIRES: changes_wall_clock(event).
std::string wall_clock_change_text(const TraceEvent& event);

// What the change did to a clock, after "which": "stepped 5s back at 10.000s", "NTP
// slewed by 100ms from 10.000s". REQUIRES: changes_wall_clock(event).
std::string wall_clock_change_clause(const TraceEvent& event);

// The change as the cause of what `node` then did: "store-1's wall clock jumped 5s
// forward at 10.000s and <then>", "NTP slewed store-1's wall clock 100ms forward from
// 10.000s, and it <then>". REQUIRES: changes_wall_clock(event).
std::string wall_clock_change_cause(const TraceEvent& event, std::string_view node, std::string_view then);

}  // namespace locksim
