#include "models/faults/clock_events.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "sim/duration_text.hpp"

namespace locksim {
namespace {

bool stepped(const TraceEvent& event) {
    return event.kind == trace_kind::clock_stepped;
}

Duration step_of(const TraceEvent& event) {
    return event.instant("new_wall") - event.instant("old_wall");
}

// "5s forward", "5s back".
std::string moved_words(Duration by) {
    return fmt::format("{} {}", format_duration_rounded(by.ns < 0 ? -by : by), by.ns < 0 ? "back" : "forward");
}

}  // namespace

bool changes_wall_clock(const TraceEvent& event) {
    return stepped(event) || event.kind == trace_kind::clock_slewing;
}

Duration wall_clock_moved(const TraceEvent& event, Instant t) {
    assert(changes_wall_clock(event));
    if (stepped(event)) return step_of(event);
    // 500 ppm: one part in 2000 of the true time since the slew began.
    const Duration whole = event.duration("by");
    const Duration made = (t - event.at) / 2000;
    return whole.ns < 0 ? std::max(whole, -made) : std::min(whole, made);
}

std::string wall_clock_change_text(const TraceEvent& event) {
    assert(changes_wall_clock(event));
    if (stepped(event))
        return fmt::format("wall clock steps from {} to {}", format_time_of_day(event.instant("old_wall")),
                           format_time_of_day(event.instant("new_wall")));
    return fmt::format("NTP slews its wall clock by {} over {}", format_duration_rounded(event.duration("by")),
                       format_duration_rounded(event.duration("over")));
}

std::string wall_clock_change_clause(const TraceEvent& event) {
    assert(changes_wall_clock(event));
    if (stepped(event)) return fmt::format("stepped {} at {}", moved_words(step_of(event)), format_seconds(event.at));
    return fmt::format("NTP slewed by {} from {}", format_duration_rounded(event.duration("by")),
                       format_seconds(event.at));
}

std::string wall_clock_change_cause(const TraceEvent& event, std::string_view node, std::string_view then) {
    assert(changes_wall_clock(event));
    if (stepped(event))
        return fmt::format("{}'s wall clock jumped {} at {} and {}", node, moved_words(step_of(event)),
                           format_seconds(event.at), then);
    return fmt::format("NTP slewed {}'s wall clock {} from {}, and it {}", node, moved_words(event.duration("by")),
                       format_seconds(event.at), then);
}

}  // namespace locksim
