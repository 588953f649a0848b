#include "sim/distribution.hpp"

#include <algorithm>
#include <cassert>

namespace locksim {

Duration DurationDistribution::draw_quantile(RandomStream& random) const {
    assert(points.size() >= 2 && points.front().probability == 0 && points.back().probability == probability_scale);
    const auto u = static_cast<std::uint32_t>(random.below(probability_scale));
    // The first point above u; the segment is [before it, it].
    const auto above = std::upper_bound(points.begin(), points.end(), u,
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
