#include "sim/observed_distribution.hpp"

#include <algorithm>
#include <cassert>
#include <limits>

#include "sim/wide_int.hpp"

namespace locksim {
namespace {

// floor(part · probability_scale / whole), exactly.
std::uint32_t parts_per_billion(std::uint64_t part, std::uint64_t whole) {
    assert(whole > 0);
    assert(part <= whole);
    return static_cast<std::uint32_t>(static_cast<uint128>(part) * probability_scale / whole);
}

}  // namespace

DurationDistribution histogram_distribution(Duration minimum, std::span<const HistogramBucket> buckets) {
    assert(!buckets.empty());
    std::uint64_t total = 0;
    for (const auto& bucket : buckets) {
        assert(bucket.count <= std::numeric_limits<std::uint64_t>::max() - total);
        total += bucket.count;
    }
    assert(total > 0);
    std::vector<QuantilePoint> points{{0, minimum}};
    std::uint64_t below = 0;
    for (const auto& bucket : buckets) {
        assert(bucket.up_to >= points.back().value);
        below += bucket.count;
        points.push_back(QuantilePoint{parts_per_billion(below, total), bucket.up_to});
    }
    return DurationDistribution::quantiles(std::move(points));
}

DurationDistribution sample_distribution(std::vector<Duration> samples) {
    assert(!samples.empty());
    assert(samples.size() <= max_samples);
    std::sort(samples.begin(), samples.end());
    if (samples.size() == 1) return DurationDistribution::fixed(samples.front());
    const std::uint64_t last = samples.size() - 1;
    std::vector<QuantilePoint> points;
    points.reserve(samples.size());
    for (std::uint64_t i = 0; i <= last; ++i) points.push_back(QuantilePoint{parts_per_billion(i, last), samples[i]});
    return DurationDistribution::quantiles(std::move(points));
}

}  // namespace locksim
