#include "runners/shard_advice.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "checks/sweep_summary.hpp"

namespace locksim {

std::optional<std::uint32_t> shards_that_pass(const std::vector<std::uint64_t>& costs, std::uint64_t limit) {
    if (std::any_of(costs.begin(), costs.end(), [limit](std::uint64_t cost) { return cost > limit; }))
        return std::nullopt;
    // Runs before each unit: a shard's cost is the difference of two of these. Each cost is
    // at most the limit, and the limits an explore holds times 2^32 units stay below 2^64.
    std::vector<std::uint64_t> before(costs.size() + 1, 0);
    std::partial_sum(costs.begin(), costs.end(), before.begin() + 1);
    const std::uint64_t units = std::max<std::uint64_t>(costs.size(), 1);
    const auto passes = [&](std::uint64_t n) {
        for (std::uint64_t i = 1; i <= n; ++i) {
            const SeedBlock block =
                shard_block(SeedBlock{0, costs.size()}, static_cast<std::uint32_t>(i), static_cast<std::uint32_t>(n));
            if (before[block.first + block.count] - before[block.first] > limit) return false;
        }
        return true;
    };
    constexpr std::uint64_t most = std::numeric_limits<std::uint32_t>::max();
    // Fewer than ⌈total / limit⌉ shards cannot pass; a shard of one unit always does.
    const std::uint64_t fewest = std::max<std::uint64_t>(1, (before.back() + limit - 1) / limit);
    std::uint64_t n = fewest;
    for (; n < fewest + 64 && n <= std::min(units, most); ++n)
        if (passes(n)) return static_cast<std::uint32_t>(n);
    for (; n < units && n <= most; n *= 2)
        if (passes(n)) return static_cast<std::uint32_t>(n);
    if (units <= most) return static_cast<std::uint32_t>(units);
    return std::nullopt;
}

}  // namespace locksim
