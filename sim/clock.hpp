#pragma once
// A node's two clocks. Both run at the node's oscillator rate (true rate plus drift);
// the wall clock also has an offset and can be stepped, the monotonic clock never steps.
// Readings count nanoseconds from the scenario's midnight (wall) or from boot (monotonic).
#include <cstdint>

#include "sim/time.hpp"

namespace locksim {

struct ClockSettings {
    Duration offset{};           // wall clock minus true time at true time 0
    std::int64_t drift_ppm = 0;  // parts per million the oscillator runs fast (+) or slow (-)
};

class NodeClock {
public:
    explicit NodeClock(ClockSettings settings = {});

    Instant wall(Instant true_now) const;
    Instant monotonic(Instant true_now) const;

    // The earliest true time at which the clock reads `reading` or later. Readings are
    // monotone in true time between steps, so this is where a timer on that clock fires.
    Instant when_monotonic_reads(Instant reading) const;
    Instant when_wall_reads(Instant reading) const;

    // Moves the wall clock by `delta` from now on (NTP stepping, an operator's `date -s`).
    void step_wall(Duration delta) { wall_steps_ += delta; }

    const ClockSettings& settings() const { return settings_; }
    // Runs at exactly the true rate: its monotonic clock advances as true time does.
    bool exact_rate() const { return settings_.drift_ppm == 0; }

private:
    Duration elapsed_by_oscillator(Instant true_now) const;
    Instant true_time_for_elapsed(Duration elapsed) const;

    ClockSettings settings_;
    Duration wall_steps_{};
};

}  // namespace locksim
