#pragma once
// Distributions from observations rather than a formula: a histogram's bucket counts, or
// every duration measured. Both become the quantile points of
// DurationDistribution::quantiles, so a draw is interpolated inside a bucket, or between
// two neighbouring samples, exactly as between two measured percentiles.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/time.hpp"

namespace locksim {

// One bucket of a histogram: `count` observations above the previous bucket's bound (the
// first bucket: from the minimum) and at most `up_to`.
struct HistogramBucket {
    Duration up_to{};
    std::uint64_t count = 0;
};

// A draw lands in each bucket with its observed frequency and is then interpolated between
// the bucket's bounds as between two quantiles. Bucket j's bound becomes the quantile at
// probability floor(cumulative count · 10^9 / total) parts per billion, so each bucket's
// share is exact to a part per billion; an empty bucket gets no draws.
// REQUIRES: at least one bucket; bounds rising, the first at least `minimum`; a total count
// above 0 that fits in 64 bits.
DurationDistribution histogram_distribution(Duration minimum, std::span<const HistogramBucket> buckets);

// Enough samples to describe any tail a run can meet; a bigger sample belongs in a
// histogram. Below 10^9 it also keeps every sample's probability distinct.
constexpr std::size_t max_samples = 1'000'000;

// The empirical distribution of `samples`, in any order. Sorted, sample i of n is the
// quantile at probability floor(i · 10^9 / (n - 1)) parts per billion: the least is the
// minimum, the greatest the maximum. One sample is a fixed duration.
// REQUIRES: 1 to max_samples samples.
DurationDistribution sample_distribution(std::vector<Duration> samples);

}  // namespace locksim
