#include "checks/exploration.hpp"

#include <algorithm>
#include <cassert>
#include <map>

#include "sim/duration_text.hpp"

namespace locksim {

const std::vector<std::string>& violation_kinds() {
    static const std::vector<std::string> kinds{"double_charges", "stale_writes_accepted", "foreign_releases",
                                                "duplicate_work_ms"};
    return kinds;
}

std::uint32_t violations_in(const RunMetrics& metrics) {
    const auto& kinds = violation_kinds();
    std::uint32_t found = 0;
    for (const auto& flag : metrics.flagged) {
        if (!flag.violation) continue;
        const auto kind = std::find(kinds.begin(), kinds.end(), flag.metric);
        assert(kind != kinds.end());  // every violation a checker flags has a kind here
        found |= 1u << static_cast<unsigned>(kind - kinds.begin());
    }
    return found;
}

std::vector<std::string> violation_names(std::uint32_t violations) {
    std::vector<std::string> names;
    for (std::size_t k = 0; k < violation_kinds().size(); ++k)
        if (violations & (1u << k)) names.push_back(violation_kinds()[k]);
    return names;
}

std::uint64_t DesignExploration::violating() const {
    return static_cast<std::uint64_t>(std::count_if(placements.begin(), placements.end(),
                                                    [](const PlacementOutcome& p) { return p.violations != 0; }));
}

std::uint64_t DesignExploration::count_of(const std::string& violation) const {
    const auto& kinds = violation_kinds();
    const auto bit = 1u << static_cast<unsigned>(std::find(kinds.begin(), kinds.end(), violation) - kinds.begin());
    return static_cast<std::uint64_t>(std::count_if(
        placements.begin(), placements.end(), [bit](const PlacementOutcome& p) { return (p.violations & bit) != 0; }));
}

std::int64_t DesignExploration::metric(std::string_view name) const {
    if (name == "placements") return static_cast<std::int64_t>(placements.size());
    if (name == "violating_placements") return static_cast<std::int64_t>(violating());
    assert(name == "windows");
    return static_cast<std::int64_t>(windows.size());
}

bool DesignExploration::held() const {
    return std::all_of(expectations.begin(), expectations.end(), [](const ExpectationResult& r) { return r.held; });
}

bool Exploration::held() const {
    return std::all_of(designs.begin(), designs.end(), [](const DesignExploration& d) { return d.held(); });
}

namespace {

// How big a size is, to find the shortest that opens a window: a clock step by how far it
// jumps either way; a crash that stays down outlasts every restart.
std::int64_t magnitude(const std::optional<Duration>& size) {
    if (!size) return INT64_MAX;
    return size->ns < 0 ? -size->ns : size->ns;
}

}  // namespace

std::vector<ExploreWindow> find_windows(const DesignExploration& design) {
    // Per (family, point): the violations of each size, from the depth-1 placements.
    struct AtPoint {
        std::uint32_t violations = 0;
        std::optional<std::size_t> smallest;  // the smallest violating size
        std::uint64_t violating = 0;
    };
    std::map<std::pair<std::size_t, std::size_t>, AtPoint> at;
    for (const auto& placement : design.placements) {
        if (placement.faults.size() != 1 || placement.violations == 0) continue;
        const FaultChoice& choice = placement.faults.front();
        AtPoint& here = at[{choice.family, choice.point}];
        here.violations |= placement.violations;
        ++here.violating;
        const auto& sizes = design.families[choice.family].sizes;
        if (!here.smallest || magnitude(sizes[choice.size]) < magnitude(sizes[*here.smallest]))
            here.smallest = choice.size;
    }

    std::vector<ExploreWindow> windows;
    for (std::size_t f = 0; f < design.families.size(); ++f) {
        const auto& family = design.families[f];
        for (const auto& node : family.targets) {
            std::optional<ExploreWindow> open;
            std::optional<std::size_t> last_safe;
            for (std::size_t p = 0; p < design.points.size(); ++p) {
                if (design.points[p].node != node) continue;
                const auto found = at.find({f, p});
                if (found == at.end()) {
                    if (open) {
                        open->safe_after = p;
                        windows.push_back(*open);
                        open.reset();
                    }
                    last_safe = p;
                    continue;
                }
                const AtPoint& here = found->second;
                if (!open) {
                    open = ExploreWindow{
                        f, node, p, p, last_safe, std::nullopt, *here.smallest, *here.smallest, *here.smallest, 0, 0};
                }
                open->last = p;
                open->last_size = *here.smallest;
                if (magnitude(family.sizes[*here.smallest]) < magnitude(family.sizes[open->shortest_size]))
                    open->shortest_size = *here.smallest;
                open->violations |= here.violations;
                open->violating_placements += here.violating;
            }
            if (open) windows.push_back(*open);
        }
    }
    return windows;
}

nlohmann::ordered_json fault_object(const DesignExploration& design, const FaultChoice& choice) {
    const FaultFamilyPlan& family = design.families[choice.family];
    const StrikePoint& point = design.points[choice.point];
    nlohmann::ordered_json fault;
    fault[family.kind] = point.node;
    if (const auto& size = family.sizes[choice.size]) fault[family.size_field] = format_duration(*size);
    if (!family.cause.empty()) fault["kind"] = family.cause;  // a pause's
    fault["when"] = {{"event", point.kind}, {"node", point.node}, {"nth", point.nth}};
    return fault;
}

nlohmann::ordered_json placement_faults(const DesignExploration& design, const PlacementOutcome& placement) {
    auto faults = nlohmann::ordered_json::array();
    for (const auto& choice : placement.faults) faults.push_back(fault_object(design, choice));
    return faults;
}

}  // namespace locksim
