// sim/duration_text.hpp: durations as scenario files write them and reports print them.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <limits>
#include <string>
#include <string_view>
#include <variant>

#include "sim/duration_text.hpp"
#include "sim/random.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

Duration parsed(std::string_view text) {
    INFO("parsing \"" << std::string(text) << "\"");
    const DurationParse result = parse_duration(text);
    if (const auto* error = std::get_if<std::string>(&result)) {
        FAIL_CHECK("unexpected error: " << *error);
        return Duration{-1};
    }
    return std::get<Duration>(result);
}

std::string parse_error(std::string_view text) {
    INFO("parsing \"" << std::string(text) << "\"");
    const DurationParse result = parse_duration(text);
    if (const auto* duration = std::get_if<Duration>(&result)) {
        FAIL_CHECK("expected an error, got " << format_duration(*duration));
        return {};
    }
    return std::get<std::string>(result);
}

}  // namespace

TEST_CASE("parse_duration reads a whole number in every unit") {
    CHECK(parsed("40s") == 40_s);
    CHECK(parsed("30000ms") == 30_s);
    CHECK(parsed("5m") == 5_min);
    CHECK(parsed("1h") == 60_min);
    CHECK(parsed("250us") == 250_us);
    CHECK(parsed("100ns") == 100_ns);
    CHECK(parsed("0s") == Duration{});
}

TEST_CASE("parse_duration reads a decimal fraction exactly") {
    CHECK(parsed("1.5s") == 1500_ms);
    CHECK(parsed("0.001s") == 1_ms);
    CHECK(parsed("2.25ms") == 2250_us);
    CHECK(parsed("1.000000001s") == 1_s + 1_ns);
    CHECK(parsed("0.5m") == 30_s);
    CHECK(parsed("1.5h") == 90_min);
}

TEST_CASE("parse_duration reads nine fraction digits of a minute or an hour exactly") {
    // 1.999999999m is 60s * 1.999999999 = 119.99999994s, a whole number of nanoseconds
    // far inside 64 bits; so is 1.123456789h.
    CHECK(parsed("1.999999999m") == 119'999'999'940_ns);
    CHECK(parsed("1.123456789h") == 60_min + Duration{444'444'440'400});
}

TEST_CASE("parse_duration accepts the largest duration that fits in 64 bits") {
    CHECK(parsed("9223372036854775807ns") == Duration{std::numeric_limits<std::int64_t>::max()});
    CHECK(parsed("9223372036.854775807s") == Duration{std::numeric_limits<std::int64_t>::max()});
}

TEST_CASE("parse_duration rejects text that is not a number and a unit") {
    for (std::string_view text :
         {"40 parsecs", "s", "1.5", "", "40", "ms", "4x0s", ".5s", "5.s", "1..5s", "+5s", " 5s"}) {
        INFO("text \"" << std::string(text) << "\"");
        const std::string error = parse_error(text);
        CHECK_THAT(error, Catch::Contains("got \"" + std::string(text) + "\""));
    }
    CHECK_THAT(parse_error("40 parsecs"), Catch::StartsWith("expected a duration such as \"40s\""));
}

TEST_CASE("parse_duration rejects a negative duration") {
    CHECK_THAT(parse_error("-5s"), Catch::Contains("cannot be negative"));
    CHECK_THAT(parse_error("-0.5ms"), Catch::Contains("cannot be negative"));
}

TEST_CASE("parse_duration rejects more than nine digits after the point") {
    CHECK_THAT(parse_error("1.0000000001s"), Catch::Contains("at most nine digits"));
}

TEST_CASE("parse_duration rejects a fraction of a nanosecond") {
    CHECK_THAT(parse_error("1.5ns"), Catch::Contains("not a whole number of nanoseconds"));
    CHECK_THAT(parse_error("0.0001us"), Catch::Contains("not a whole number of nanoseconds"));
}

TEST_CASE("parse_duration rejects a duration too large for 64 bits") {
    CHECK_THAT(parse_error("99999999999999h"), Catch::Contains("too large"));
    CHECK_THAT(parse_error("9223372036854775808ns"), Catch::Contains("too large"));
    CHECK_THAT(parse_error("99999999999999999999999ns"), Catch::Contains("too large"));
    CHECK_THAT(parse_error("9223372036.854775808s"), Catch::Contains("too large"));
}

TEST_CASE("format_duration prints the shortest exact spelling") {
    CHECK(format_duration(35_s) == "35s");
    CHECK(format_duration(1500_ms) == "1.5s");
    CHECK(format_duration(250_ms) == "250ms");
    CHECK(format_duration(5_min) == "5m");
    CHECK(format_duration(60_min) == "1h");
    CHECK(format_duration(Duration{}) == "0s");
    CHECK(format_duration(1_ns) == "1ns");
    CHECK(format_duration(1001_ms) == "1.001s");
    CHECK(format_duration(1'234'567_ns) == "1.234567ms");
    CHECK(format_duration(250_us) == "250us");
}

TEST_CASE("format_duration prints whole minutes as minutes and other seconds as seconds") {
    CHECK(format_duration(90_s) == "90s");
    CHECK(format_duration(120_s) == "2m");
    CHECK(format_duration(90_min) == "90m");
    CHECK(format_duration(120_min) == "2h");
    CHECK(format_duration(60_s + 500_ms) == "60.5s");
}

TEST_CASE("format_duration puts a minus sign before a negative duration") {
    CHECK(format_duration(-35_s) == "-35s");
    CHECK(format_duration(-1500_ms) == "-1.5s");
}

TEST_CASE("a formatted duration parses back to the same duration") {
    for (Duration d : {35_s, 1500_ms, 250_ms, 5_min, 60_min, Duration{}, 1_ns, 90_s, 1_s + 1_ns, 61_min,
                       Duration{std::numeric_limits<std::int64_t>::max()}}) {
        INFO("formatted " << format_duration(d));
        CHECK(parsed(format_duration(d)) == d);
    }
    RandomStream random(7, "duration-round-trip");
    for (int i = 0; i < 10'000; ++i) {
        // Mostly short durations with every digit in play, plus some up to the 64-bit limit.
        const auto bound =
            i % 2 == 0 ? 100'000'000'000ULL : static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        const Duration d{static_cast<std::int64_t>(random.below(bound))};
        INFO(d.ns << "ns formatted " << format_duration(d));
        CHECK(parsed(format_duration(d)) == d);
    }
}

TEST_CASE("fmt prints a duration with format_duration") {
    CHECK(fmt::format("{}", 1500_ms) == "1.5s");
    CHECK(fmt::format("ttl={}", 30_s) == "ttl=30s");
}

TEST_CASE("format_seconds prints seconds with milliseconds") {
    CHECK(format_seconds(midnight + 40_s) == "40.000s");
    CHECK(format_seconds(midnight) == "0.000s");
    CHECK(format_seconds(midnight + 30_s + 1_ms) == "30.001s");
    CHECK(format_seconds(midnight + 1500_ms) == "1.500s");
    CHECK(format_seconds(midnight + 125_min) == "7500.000s");
    CHECK(format_seconds(midnight - 1500_ms) == "-1.500s");
}

TEST_CASE("format_seconds drops digits below a millisecond") {
    CHECK(format_seconds(midnight + 30_s + 1_ms + 999_us) == "30.001s");
    CHECK(format_seconds(midnight + 999_us) == "0.000s");
}

TEST_CASE("fmt prints an instant with format_seconds") {
    CHECK(fmt::format("[t={}]", midnight + 40_s) == "[t=40.000s]");
}

TEST_CASE("format_time_of_day prints a wall-clock reading as hours, minutes, seconds and milliseconds") {
    CHECK(format_time_of_day(midnight) == "00:00:00.000");
    CHECK(format_time_of_day(midnight + 30_s + 1_ms) == "00:00:30.001");
    CHECK(format_time_of_day(midnight + 62_min + 3_s + 4_ms) == "01:02:03.004");
    CHECK(format_time_of_day(midnight + 60_min * 24 - 1_ms) == "23:59:59.999");
}

TEST_CASE("format_time_of_day wraps around midnight") {
    CHECK(format_time_of_day(midnight + 60_min * 25) == "01:00:00.000");
    CHECK(format_time_of_day(midnight - 1_s) == "23:59:59.000");
}
