#include "sim/duration_text.hpp"

#include "sim/wide_int.hpp"

#include <array>
#include <cstdint>
#include <limits>

namespace locksim {
namespace {

struct Unit {
    std::string_view suffix;
    std::int64_t ns;
};

// Longest suffixes first so "ms" is not read as "m" followed by garbage.
constexpr std::array<Unit, 8> parse_units{{
    {"min", 60'000'000'000},
    {"ns", 1},
    {"us", 1'000},
    {"ms", 1'000'000},
    {"s", 1'000'000'000},
    {"m", 60'000'000'000},
    {"h", 3'600'000'000'000},
    {"d", 86'400'000'000'000},
}};

std::string expected_duration(std::string_view text) {
    return fmt::format(
        "expected a duration such as \"40s\", \"250ms\" or \"5m\" "
        "(units ns, us, ms, s, m, h, d), got \"{}\"",
        text);
}

}  // namespace

DurationParse parse_duration(std::string_view text) {
    const Unit* unit = nullptr;
    std::string_view number;
    for (const auto& candidate : parse_units) {
        if (text.size() > candidate.suffix.size() && text.ends_with(candidate.suffix)) {
            unit = &candidate;
            number = text.substr(0, text.size() - candidate.suffix.size());
            break;
        }
    }
    if (unit == nullptr) return expected_duration(text);
    if (number.starts_with('-')) return fmt::format("a duration cannot be negative, got \"{}\"", text);

    // Whole part and fraction are read as integers so "1.5s" is exactly 1'500'000'000 ns.
    const auto dot = number.find('.');
    const std::string_view whole = number.substr(0, dot);
    const std::string_view fraction = dot == std::string_view::npos ? std::string_view{} : number.substr(dot + 1);
    if (whole.empty() || (dot != std::string_view::npos && fraction.empty())) return expected_duration(text);
    if (fraction.size() > 9) return fmt::format("at most nine digits after the point, got \"{}\"", text);

    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    std::int64_t whole_value = 0;
    for (char c : whole) {
        if (c < '0' || c > '9') return expected_duration(text);
        if (whole_value > (max - (c - '0')) / 10) return fmt::format("duration \"{}\" is too large", text);
        whole_value = whole_value * 10 + (c - '0');
    }
    std::int64_t fraction_value = 0;
    std::int64_t fraction_scale = 1;
    for (char c : fraction) {
        if (c < '0' || c > '9') return expected_duration(text);
        fraction_value = fraction_value * 10 + (c - '0');
        fraction_scale *= 10;
    }
    // 128-bit arithmetic: 1.999999999m is 1999999999 * 60e9 / 1e9 before the division.
    const int128 fraction_ns_scaled = static_cast<int128>(fraction_value) * unit->ns;
    if (fraction_ns_scaled % fraction_scale != 0)
        return fmt::format("duration \"{}\" is not a whole number of nanoseconds", text);
    const int128 total = static_cast<int128>(whole_value) * unit->ns + fraction_ns_scaled / fraction_scale;
    if (total > max) return fmt::format("duration \"{}\" is too large", text);
    return Duration{static_cast<std::int64_t>(total)};
}

std::string format_duration(Duration d) {
    if (d.ns < 0) return "-" + format_duration(-d);
    if (d.ns == 0) return "0s";
    if (d.ns % hours(1).ns == 0) return fmt::format("{}h", d.ns / hours(1).ns);
    if (d.ns % minutes(1).ns == 0) return fmt::format("{}m", d.ns / minutes(1).ns);

    struct Scale {
        std::int64_t ns;
        std::string_view suffix;
    };
    constexpr std::array<Scale, 4> scales{{{1'000'000'000, "s"}, {1'000'000, "ms"}, {1'000, "us"}, {1, "ns"}}};
    for (const auto& scale : scales) {
        if (d.ns < scale.ns) continue;
        std::string text = fmt::format("{}", d.ns / scale.ns);
        std::int64_t rest = d.ns % scale.ns;
        if (rest != 0) {
            // Fraction digits of this unit, trailing zeros dropped: 1.5s, not 1.500000000s.
            std::string digits;
            for (std::int64_t place = scale.ns / 10; place > 0 && rest != 0; place /= 10) {
                digits += static_cast<char>('0' + rest / place);
                rest %= place;
            }
            text += "." + digits;
        }
        return text + std::string(scale.suffix);
    }
    return "0s";  // unreachable: d.ns >= 1 matched the last scale
}

std::string format_duration_rounded(Duration d) {
    const auto round_to = [](Duration value, std::int64_t unit) {
        const std::int64_t half = unit / 2;
        return Duration{(value.ns >= 0 ? value.ns + half : value.ns - half) / unit * unit};
    };
    const std::int64_t magnitude = d.ns < 0 ? -d.ns : d.ns;
    if (magnitude >= seconds(1).ns) return format_duration(round_to(d, milliseconds(1).ns));
    if (magnitude >= milliseconds(1).ns) return format_duration(round_to(d, microseconds(1).ns));
    return format_duration(d);
}

std::string format_seconds(Instant t) {
    const std::int64_t millis = t.ns / 1'000'000;
    const char* sign = millis < 0 ? "-" : "";
    const std::int64_t magnitude = millis < 0 ? -millis : millis;
    return fmt::format("{}{}.{:03}s", sign, magnitude / 1000, magnitude % 1000);
}

std::string format_time_of_day(Instant t) {
    constexpr std::int64_t day_ms = 24LL * 3600 * 1000;
    std::int64_t ms = (t.ns / 1'000'000) % day_ms;
    if (ms < 0) ms += day_ms;
    return fmt::format("{:02}:{:02}:{:02}.{:03}", ms / 3'600'000, ms / 60'000 % 60, ms / 1000 % 60, ms % 1000);
}

}  // namespace locksim
