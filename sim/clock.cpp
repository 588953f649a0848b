#include "sim/clock.hpp"

#include <cassert>

#include "sim/wide_int.hpp"

namespace locksim {

NodeClock::NodeClock(ClockSettings settings) : settings_(settings) {
    assert(settings.drift_ppm > -1'000'000);  // a clock that runs backwards is not a clock
}

Duration NodeClock::elapsed_by_oscillator(Instant true_now) const {
    const int128 drift = static_cast<int128>(true_now.ns) * settings_.drift_ppm / 1'000'000;
    return Duration{true_now.ns + static_cast<std::int64_t>(drift)};
}

Instant NodeClock::true_time_for_elapsed(Duration elapsed) const {
    if (elapsed.ns <= 0) return Instant{0};
    // Invert t + t*ppm/1e6 (integer division) and then settle on the least t that reaches
    // `elapsed`; the estimate is within a nanosecond or two.
    int128 estimate = static_cast<int128>(elapsed.ns) * 1'000'000 / (1'000'000 + settings_.drift_ppm);
    Instant t{static_cast<std::int64_t>(estimate)};
    while (elapsed_by_oscillator(t) < elapsed) t.ns += 1;
    while (t.ns > 0 && elapsed_by_oscillator(Instant{t.ns - 1}) >= elapsed) t.ns -= 1;
    return t;
}

Instant NodeClock::wall(Instant true_now) const {
    return Instant{0} + elapsed_by_oscillator(true_now) + settings_.offset + wall_steps_;
}

Instant NodeClock::monotonic(Instant true_now) const { return Instant{0} + elapsed_by_oscillator(true_now); }

Instant NodeClock::when_monotonic_reads(Instant reading) const {
    return true_time_for_elapsed(reading - Instant{0});
}

Instant NodeClock::when_wall_reads(Instant reading) const {
    return true_time_for_elapsed(reading - Instant{0} - settings_.offset - wall_steps_);
}

}  // namespace locksim
