#pragma once
// Simulated time: integer nanoseconds wrapped in two small types, so a duration is
// never confused with a point in time and no floating-point time exists anywhere.
#include <compare>
#include <cstdint>
#include <optional>

namespace locksim {

struct Duration {
    std::int64_t ns = 0;

    constexpr auto operator<=>(const Duration&) const = default;
    constexpr Duration operator+(Duration other) const { return {ns + other.ns}; }
    constexpr Duration operator-(Duration other) const { return {ns - other.ns}; }
    constexpr Duration operator-() const { return {-ns}; }
    constexpr Duration operator*(std::int64_t factor) const { return {ns * factor}; }
    constexpr Duration operator/(std::int64_t divisor) const { return {ns / divisor}; }
    constexpr Duration& operator+=(Duration other) {
        ns += other.ns;
        return *this;
    }
    constexpr Duration& operator-=(Duration other) {
        ns -= other.ns;
        return *this;
    }
};

// A point on some time line: true simulated time, or a reading of a node's clock.
// Both count nanoseconds from the scenario's midnight.
struct Instant {
    std::int64_t ns = 0;

    constexpr auto operator<=>(const Instant&) const = default;
    constexpr Instant operator+(Duration d) const { return {ns + d.ns}; }
    constexpr Instant operator-(Duration d) const { return {ns - d.ns}; }
    constexpr Duration operator-(Instant other) const { return {ns - other.ns}; }
    constexpr Instant& operator+=(Duration d) {
        ns += d.ns;
        return *this;
    }
};

// `d` times `factor`, or nothing when the product passes what 64 bits of nanoseconds hold
// (about 292 years): a count from a file times a duration from it is checked, never wrapped.
constexpr std::optional<Duration> checked_product(Duration d, std::int64_t factor) {
    std::int64_t ns = 0;
    if (__builtin_mul_overflow(d.ns, factor, &ns)) return std::nullopt;
    return Duration{ns};
}

constexpr Duration nanoseconds(std::int64_t n) {
    return {n};
}
constexpr Duration microseconds(std::int64_t n) {
    return {n * 1'000};
}
constexpr Duration milliseconds(std::int64_t n) {
    return {n * 1'000'000};
}
constexpr Duration seconds(std::int64_t n) {
    return {n * 1'000'000'000};
}
constexpr Duration minutes(std::int64_t n) {
    return seconds(n * 60);
}
constexpr Duration hours(std::int64_t n) {
    return minutes(n * 60);
}

namespace time_literals {
constexpr Duration operator""_ns(unsigned long long n) {
    return nanoseconds(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_us(unsigned long long n) {
    return microseconds(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_ms(unsigned long long n) {
    return milliseconds(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_s(unsigned long long n) {
    return seconds(static_cast<std::int64_t>(n));
}
constexpr Duration operator""_min(unsigned long long n) {
    return minutes(static_cast<std::int64_t>(n));
}
}  // namespace time_literals

constexpr Instant midnight{0};
// A time no run reaches: where a clock would only read some value after the end of time.
constexpr Instant never{INT64_MAX};

}  // namespace locksim
