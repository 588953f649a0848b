#include "checks/equivalent_placements.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <map>

namespace locksim {
namespace {

// What decides a placement's run: its faults in the order their actions are queued, two
// words each: what the fault does and to whom, then where its action is queued. Depth is 1
// or 2 (the loader refuses more); a single fault leaves the second pair zero.
using RunKey = std::array<std::uint64_t, 4>;

RunKey run_key(const DesignExploration& design, const PlacementOutcome& placement) {
    assert(placement.faults.size() <= 2);
    // The order the actions are queued in: by strike point (points are in trace order), and
    // at one strike point in the order of the placement's faults, as the world registers
    // their triggers.
    std::array<FaultChoice, 2> queued{};
    std::copy(placement.faults.begin(), placement.faults.end(), queued.begin());
    if (placement.faults.size() == 2 && queued[1].point < queued[0].point) std::swap(queued[0], queued[1]);
    const QueuePlace first = design.points[queued[0].point].place;
    RunKey key{};
    for (std::size_t f = 0; f < placement.faults.size(); ++f) {
        const FaultChoice& choice = queued[f];
        const StrikePoint& point = design.points[choice.point];
        const bool placed_by_gap = point.place.handling == first.handling;
        const std::uint64_t node = design.baseline.events()[point.sequence].node.index;
        // Families, sizes and nodes are few: 20 bits each is room to spare.
        assert(choice.family < (1u << 20) && choice.size < (1u << 20) && node < (1u << 20));
        key[2 * f] = (std::uint64_t{choice.family} << 41) | (std::uint64_t{choice.size} << 21) | (node << 1) |
                     (placed_by_gap ? 0u : 1u);
        key[2 * f + 1] = placed_by_gap ? point.place.gap : choice.point;
    }
    return key;
}

}  // namespace

std::vector<std::size_t> same_run_as(const DesignExploration& design) {
    std::map<RunKey, std::size_t> first_with;
    std::vector<std::size_t> same(design.placements.size());
    for (std::size_t k = 0; k < design.placements.size(); ++k)
        same[k] = first_with.try_emplace(run_key(design, design.placements[k]), k).first->second;
    return same;
}

}  // namespace locksim
