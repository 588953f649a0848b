#include "sim/clock.hpp"

#include <cassert>
#include <cstdint>

#include "sim/wide_int.hpp"

namespace locksim {

NodeClock::NodeClock(ClockSettings settings) : settings_(settings) {
    assert(settings.drift_ppm > -1'000'000);  // a clock that runs backwards is not a clock
}

// The oscillator's reading after `true_now` of true time: floor(t * (1e6 + ppm) / 1e6).
// True time is never negative and the rate is positive, so integer division is floor.
Duration NodeClock::elapsed_by_oscillator(Instant true_now) const {
    if (settings_.drift_ppm == 0) return Duration{true_now.ns};  // the common exact clock, without 128-bit division
    const int128 scaled = static_cast<int128>(true_now.ns) * (1'000'000 + settings_.drift_ppm) / 1'000'000;
    return Duration{static_cast<std::int64_t>(scaled)};
}

// The least t with floor(t * rate / 1e6) >= elapsed, which is ceil(elapsed * 1e6 / rate);
// a reading the clock never reaches within int64 time is `never`.
Instant NodeClock::true_time_for_elapsed(Duration elapsed) const {
    if (elapsed.ns <= 0) return Instant{0};
    if (settings_.drift_ppm == 0) return Instant{elapsed.ns};
    const int128 rate = 1'000'000 + settings_.drift_ppm;
    const int128 t = (static_cast<int128>(elapsed.ns) * 1'000'000 + rate - 1) / rate;
    if (t > INT64_MAX) return never;
    return Instant{static_cast<std::int64_t>(t)};
}

Instant NodeClock::wall(Instant true_now) const {
    return Instant{0} + elapsed_by_oscillator(true_now) + settings_.offset + wall_steps_;
}

Instant NodeClock::monotonic(Instant true_now) const {
    return Instant{0} + elapsed_by_oscillator(true_now);
}

Instant NodeClock::when_monotonic_reads(Instant reading) const {
    return true_time_for_elapsed(reading - Instant{0});
}

Instant NodeClock::when_wall_reads(Instant reading) const {
    return true_time_for_elapsed(reading - Instant{0} - settings_.offset - wall_steps_);
}

}  // namespace locksim
