#include "checks/equivalent_placements.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

namespace locksim {
namespace {

// What decides a placement's run: its faults in the order their actions are queued, each
// with what it does, to whom, and where it is queued.
std::vector<std::uint64_t> run_key(const DesignExploration& design, const PlacementOutcome& placement) {
    // The order the actions are queued in: by strike point (points are in trace order), and
    // at one strike point in the order of the placement's faults, as the world registers
    // their triggers.
    std::vector<FaultChoice> queued = placement.faults;
    std::stable_sort(queued.begin(), queued.end(),
                     [](const FaultChoice& a, const FaultChoice& b) { return a.point < b.point; });
    const QueuePlace first = design.points[queued.front().point].place;
    std::vector<std::uint64_t> key;
    for (const FaultChoice& choice : queued) {
        const StrikePoint& point = design.points[choice.point];
        const bool placed_by_gap = point.place.handling == first.handling;
        key.insert(key.end(), {choice.family, choice.size, design.baseline.events()[point.sequence].node.index,
                               placed_by_gap ? 0u : 1u, placed_by_gap ? point.place.gap : choice.point});
    }
    return key;
}

}  // namespace

std::vector<std::size_t> same_run_as(const DesignExploration& design) {
    std::map<std::vector<std::uint64_t>, std::size_t> first_with;
    std::vector<std::size_t> same(design.placements.size());
    for (std::size_t k = 0; k < design.placements.size(); ++k)
        same[k] = first_with.try_emplace(run_key(design, design.placements[k]), k).first->second;
    return same;
}

}  // namespace locksim
