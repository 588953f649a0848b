#include "sim/distribution.hpp"

#include <algorithm>
#include <cassert>

namespace locksim {

Duration DurationDistribution::draw_quantile(RandomStream& random) const {
    assert(points != nullptr);
    const std::vector<QuantilePoint>& given = *points;
    assert(given.size() >= 2);
    assert(given.front().probability == 0);
    assert(given.back().probability == probability_scale);
    const auto u = static_cast<std::uint32_t>(random.below(probability_scale));
    // The first point above u (there is one: u < probability_scale); the segment is
    // [before it, it], and its probabilities differ.
    const auto above = std::upper_bound(given.begin(), given.end(), u,
                                        [](std::uint32_t p, const QuantilePoint& q) { return p < q.probability; });
    const QuantilePoint& upper = *above;
    const QuantilePoint& lower = *(above - 1);
    const double t =
        static_cast<double>(u - lower.probability) / static_cast<double>(upper.probability - lower.probability);
    const auto a = static_cast<double>(lower.value.ns);
    const auto b = static_cast<double>(upper.value.ns);
    if (a <= 0 || a == b) return Duration{lower.value.ns + static_cast<std::int64_t>(t * (b - a))};
    const double x = a * portable_exp(t * portable_log(b / a));
    return Duration{std::clamp(static_cast<std::int64_t>(x), lower.value.ns, upper.value.ns)};
}

}  // namespace locksim
