// sim/observed_distribution.hpp: a histogram's counts and a file's samples become quantile
// points, exactly, and draws follow what was observed.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "sim/observed_distribution.hpp"
#include "sim/random.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// Draws from many seeds, as sweeps do: `seeds` streams of `per_seed` draws each.
std::vector<Duration> draws_over_seeds(const DurationDistribution& distribution, int seeds, int per_seed) {
    std::vector<Duration> values;
    values.reserve(static_cast<std::size_t>(seeds * per_seed));
    for (int seed = 1; seed <= seeds; ++seed) {
        RandomStream random(static_cast<std::uint64_t>(seed), "fault_generators/0/server-1");
        for (int i = 0; i < per_seed; ++i) values.push_back(distribution.draw(random));
    }
    return values;
}

// The share of `values` above `low` and at most `high`: one bucket's.
double share_in(const std::vector<Duration>& values, Duration low, Duration high) {
    const auto count = std::count_if(values.begin(), values.end(), [&](Duration d) { return d > low && d <= high; });
    return static_cast<double>(count) / static_cast<double>(values.size());
}

bool same_points(const std::vector<QuantilePoint>& actual, const std::vector<QuantilePoint>& expected) {
    return std::equal(actual.begin(), actual.end(), expected.begin(), expected.end(),
                      [](const QuantilePoint& a, const QuantilePoint& b) {
                          return a.probability == b.probability && a.value == b.value;
                      });
}

// The shape of the histogram example in docs/scenario-format.md: 950 pauses up to 10 ms, 45 up to 200 ms, 4 up to 4 s,
// one up to 15 s.
constexpr std::array<HistogramBucket, 4> gc_buckets{{{10_ms, 950}, {200_ms, 45}, {4_s, 4}, {15_s, 1}}};

}  // namespace

// --- histograms -------------------------------------------------------------------

TEST_CASE("a histogram's bounds become quantiles at the cumulative share of counts, in exact parts per billion") {
    CHECK(same_points(
        points_of(histogram_distribution(0_s, gc_buckets)),
        {{0, 0_s}, {950'000'000, 10_ms}, {995'000'000, 200_ms}, {999'000'000, 4_s}, {probability_scale, 15_s}}));
    // Thirds round down, and the last bound is always probability 1.
    const std::array<HistogramBucket, 3> thirds{{{1_ms, 1}, {2_ms, 1}, {3_ms, 1}}};
    CHECK(same_points(points_of(histogram_distribution(500_us, thirds)),
                      {{0, 500_us}, {333'333'333, 1_ms}, {666'666'666, 2_ms}, {probability_scale, 3_ms}}));
    // Counts that add up to 2^64 - 1 do not overflow: all but one of them is a share just
    // below 1, rounded down to 999'999'999 parts per billion.
    const std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
    const std::array<HistogramBucket, 2> huge{{{1_s, most - 1}, {2_s, 1}}};
    CHECK(same_points(points_of(histogram_distribution(0_s, huge)),
                      {{0, 0_s}, {999'999'999, 1_s}, {probability_scale, 2_s}}));
}

TEST_CASE("a histogram's draws land in each bucket at its observed frequency") {
    const auto distribution = histogram_distribution(0_s, gc_buckets);
    const auto values = draws_over_seeds(distribution, 200, 1000);
    for (Duration value : values) REQUIRE((value >= 0_s && value <= 15_s));
    Duration low{};
    for (const auto& bucket : gc_buckets) {
        const double expected = static_cast<double>(bucket.count) / 1000.0;
        INFO("bucket up to " << format_duration(bucket.up_to));
        CHECK(share_in(values, low, bucket.up_to) == Approx(expected).margin(five_sigma(expected, values.size())));
        low = bucket.up_to;
    }
    // Inside a bucket, a draw is log-linear between its bounds: half of the 200 ms – 4 s
    // bucket's 0.4 % lies below their geometric mean.
    const Duration middle{static_cast<std::int64_t>(std::sqrt(0.2 * 4.0) * 1e9)};
    CHECK(share_in(values, 200_ms, middle) == Approx(0.002).margin(five_sigma(0.002, values.size())));
}

TEST_CASE("an empty bucket gets no draws, wherever it is") {
    SECTION("in the middle: draws jump from its lower bound to its upper") {
        const std::array<HistogramBucket, 3> buckets{{{10_ms, 50}, {1_s, 0}, {2_s, 50}}};
        const auto values = draws_over_seeds(histogram_distribution(0_s, buckets), 100, 1000);
        CHECK(std::none_of(values.begin(), values.end(), [](Duration d) { return d > 10_ms && d < 1_s; }));
        CHECK(share_in(values, 0_s, 10_ms) == Approx(0.5).margin(five_sigma(0.5, values.size())));
        CHECK(share_in(values, 999_ms, 2_s) == Approx(0.5).margin(five_sigma(0.5, values.size())));
    }
    SECTION("first: no draw below its bound") {
        const std::array<HistogramBucket, 2> buckets{{{10_ms, 0}, {20_ms, 7}}};
        const auto values = draws_over_seeds(histogram_distribution(0_s, buckets), 20, 1000);
        CHECK(std::all_of(values.begin(), values.end(), [](Duration d) { return d >= 10_ms && d <= 20_ms; }));
    }
    SECTION("last: no draw above the bucket before it") {
        const std::array<HistogramBucket, 2> buckets{{{10_ms, 7}, {20_ms, 0}}};
        const auto values = draws_over_seeds(histogram_distribution(0_s, buckets), 20, 1000);
        CHECK(std::all_of(values.begin(), values.end(), [](Duration d) { return d <= 10_ms; }));
    }
}

TEST_CASE("a histogram of one bucket spreads draws between the minimum and its bound") {
    // From 0 s the draw is linear: uniform over [0, 1s].
    const std::array<HistogramBucket, 1> from_zero{{{1_s, 7}}};
    const auto linear = draws_over_seeds(histogram_distribution(0_s, from_zero), 100, 1000);
    CHECK(share_in(linear, 0_s, 250_ms) == Approx(0.25).margin(five_sigma(0.25, linear.size())));
    // From 100 ms it is log-linear: half the draws lie below 1 s, the geometric mean of 100 ms and 10 s.
    const std::array<HistogramBucket, 1> from_100ms{{{10_s, 1}}};
    const auto logarithmic = draws_over_seeds(histogram_distribution(100_ms, from_100ms), 100, 1000);
    CHECK(std::all_of(logarithmic.begin(), logarithmic.end(), [](Duration d) { return d >= 100_ms && d <= 10_s; }));
    CHECK(share_in(logarithmic, 0_s, 1_s) == Approx(0.5).margin(five_sigma(0.5, logarithmic.size())));
}

TEST_CASE("the same seed gives a histogram's same draws, and another seed others") {
    const auto distribution = histogram_distribution(0_s, gc_buckets);
    const auto draws = [&](std::uint64_t seed) {
        RandomStream random(seed, "histogram");
        std::vector<Duration> values;
        for (int i = 0; i < 1000; ++i) values.push_back(distribution.draw(random));
        return values;
    };
    CHECK(draws(7) == draws(7));
    CHECK(draws(7) != draws(8));
}

// --- samples ----------------------------------------------------------------------

TEST_CASE("one observed sample is a fixed duration that draws nothing from its stream") {
    const auto distribution = sample_distribution({42_ms});
    CHECK(distribution.shape == DurationDistribution::Shape::fixed);
    RandomStream used(1, "sample");
    RandomStream untouched(1, "sample");
    for (int i = 0; i < 100; ++i) REQUIRE(distribution.draw(used) == 42_ms);
    CHECK(used.next_u64() == untouched.next_u64());
}

TEST_CASE("sorted samples become quantiles at i/(n-1), from the least to the greatest") {
    CHECK(same_points(
        points_of(sample_distribution({40_ms, 10_ms, 30_ms, 20_ms, 50_ms})),
        {{0, 10_ms}, {250'000'000, 20_ms}, {500'000'000, 30_ms}, {750'000'000, 40_ms}, {probability_scale, 50_ms}}));
    // Two samples: every draw between them. Equal samples: every draw is that value.
    RandomStream random(1, "samples");
    const auto pair = sample_distribution({3_s, 1_s});
    const auto twice = sample_distribution({5_ms, 5_ms, 5_ms});
    for (int i = 0; i < 1000; ++i) {
        const Duration d = pair.draw(random);
        REQUIRE((d >= 1_s && d <= 3_s));
        REQUIRE(twice.draw(random) == 5_ms);
    }
}

TEST_CASE("a hundred thousand samples are drawn from as observed") {
    // 1 ms, 2 ms, … 100 s in reverse order: any quantile of the draws is that of the samples.
    std::vector<Duration> samples;
    for (std::int64_t i = 100'000; i >= 1; --i) samples.push_back(1_ms * i);
    const auto distribution = sample_distribution(samples);
    const auto points = points_of(distribution);
    REQUIRE(points.size() == 100'000);
    CHECK(points.front().value == 1_ms);
    CHECK(points.back().value == 100_s);
    CHECK(std::adjacent_find(points.begin(), points.end(), [](const QuantilePoint& a, const QuantilePoint& b) {
              return a.probability >= b.probability;
          }) == points.end());
    const auto values = draws_over_seeds(distribution, 100, 1000);
    for (Duration value : values) REQUIRE((value >= 1_ms && value <= 100_s));
    CHECK(share_in(values, 0_s, 10_s) == Approx(0.1).margin(five_sigma(0.1, values.size())));
    CHECK(share_in(values, 0_s, 50_s) == Approx(0.5).margin(five_sigma(0.5, values.size())));
    CHECK(share_in(values, 99_s, 100_s) == Approx(0.01).margin(five_sigma(0.01, values.size())));
}
