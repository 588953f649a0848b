#pragma once
// Durations as people write them in scenario files ("40s", "30000ms", "1.5s", "5m")
// and as every report prints them back.
#include <fmt/format.h>

#include <string>
#include <string_view>
#include <variant>

#include "sim/time.hpp"

namespace locksim {

// Either the parsed duration or a sentence saying what was wrong with the text.
using DurationParse = std::variant<Duration, std::string>;

// Accepts a non-negative decimal number followed by a unit: ns, us, ms, s, m (minutes),
// h. Up to nine digits after the decimal point; the result must be a whole number of
// nanoseconds that fits in 64 bits.
DurationParse parse_duration(std::string_view text);

// The shortest exact spelling in the largest unit that keeps it short:
// 35s, 1.5s, 250ms, 5m, 1h, 0s. parse_duration(format_duration(d)) == d for every d >= 0.
std::string format_duration(Duration d);

// For people rather than files: seconds to the millisecond, milliseconds to the
// microsecond ("9.167s", "801.189ms"), then exact as format_duration.
std::string format_duration_rounded(Duration d);

// A point in time as seconds with millisecond precision, "40.000s": the column format
// of timelines, where equal widths matter more than exactness.
std::string format_seconds(Instant t);

// A wall-clock reading as a time of day, "00:00:30.001", for clocks that count from midnight.
std::string format_time_of_day(Instant t);

}  // namespace locksim

template <>
struct fmt::formatter<locksim::Duration> : fmt::formatter<std::string_view> {
    auto format(locksim::Duration d, format_context& ctx) const {
        return fmt::formatter<std::string_view>::format(locksim::format_duration(d), ctx);
    }
};

template <>
struct fmt::formatter<locksim::Instant> : fmt::formatter<std::string_view> {
    auto format(locksim::Instant t, format_context& ctx) const {
        return fmt::formatter<std::string_view>::format(locksim::format_seconds(t), ctx);
    }
};
