#include "checks/exploration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "models/faults/fault.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

namespace {

// An exploration's own totals per design, by the names an explore block's "expect" uses.
struct ExploreCount {
    std::string_view name;
    std::string_view meaning;
    std::int64_t (*of)(const DesignExploration&);
};
constexpr ExploreCount explore_counts[] = {
    {explore_total::placements, "Placements tried.",
     [](const DesignExploration& d) { return static_cast<std::int64_t>(d.placements.size()); }},
    {explore_total::violating_placements,
     "Placements of the listed sizes whose run broke what the lock is for: a checker flagged a violation (the "
     "metrics `locksim metrics` marks as violations). A range's faults are counted by `regions`; a design whose "
     "explore expectations name neither this nor `windows` expects 0.",
     [](const DesignExploration& d) { return static_cast<std::int64_t>(d.violating()); }},
    {explore_total::regions,
     "Regions of faults explored over a range of lengths or sizes that violate: rectangles of start and end "
     "instants (or a start and sizes) on one node. A design whose explore expectations do not name it expects 0.",
     [](const DesignExploration& d) { return static_cast<std::int64_t>(d.regions.size()); }},
    {explore_total::windows,
     "Maximal runs of consecutive strike points on one node at which some size violates (depth 1).",
     [](const DesignExploration& d) { return static_cast<std::int64_t>(d.windows.size()); }},
};

}  // namespace

std::vector<TotalSpec> explore_totals() {
    std::vector<TotalSpec> totals;
    for (const auto& count : explore_counts)
        totals.push_back(TotalSpec{std::string(count.name), std::string(count.meaning)});
    return totals;
}

bool UnitOutcome::violated() const {
    return violations > 0 ||
           std::any_of(segments.begin(), segments.end(), [](const EndSegment& s) { return s.violations > 0; }) ||
           std::any_of(sizes.begin(), sizes.end(), [](const SizeSegment& s) { return s.violations > 0; });
}

std::uint64_t DesignExploration::violating() const {
    return static_cast<std::uint64_t>(std::count_if(placements.begin(), placements.end(),
                                                    [](const PlacementOutcome& p) { return p.violations != 0; }));
}

std::uint64_t DesignExploration::count_of(Metric violation) const {
    const std::uint32_t bit = violation_flag(violation);
    return static_cast<std::uint64_t>(std::count_if(
        placements.begin(), placements.end(), [bit](const PlacementOutcome& p) { return (p.violations & bit) != 0; }));
}

std::uint64_t DesignExploration::regions_showing(Metric violation) const {
    const std::uint32_t bit = violation_flag(violation);
    return static_cast<std::uint64_t>(std::count_if(regions.begin(), regions.end(),
                                                    [bit](const FaultRegion& r) { return (r.violations & bit) != 0; }));
}

std::int64_t DesignExploration::total(std::string_view name) const {
    for (const auto& count : explore_counts)
        if (count.name == name) return count.of(*this);
    // The loader lets only explore_totals() into an explore block's "expect".
    throw std::logic_error(fmt::format("an exploration has no total named \"{}\"", name));
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

bool longer_size(const std::optional<Duration>& a, const std::optional<Duration>& b) {
    if (!b) return false;
    if (!a) return b->ns >= 0;
    return (a->ns < 0) == (b->ns < 0) && magnitude(a) > magnitude(b);
}

std::vector<ExploreWindow> find_windows(const DesignExploration& design) {
    // Per (family, point): the violations of each size, from the depth-1 placements.
    struct AtPoint {
        std::set<std::size_t> violating_sizes;
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
        here.violating_sizes.insert(choice.size);
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
                    open = ExploreWindow{.family = f,
                                         .node = node,
                                         .first = p,
                                         .last = p,
                                         .safe_before = last_safe,
                                         .first_size = *here.smallest,
                                         .last_size = *here.smallest,
                                         .shortest_size = *here.smallest};
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
    for (auto& window : windows) {
        const auto& sizes = design.families[window.family].sizes;
        for (std::size_t p = window.first; p <= window.last && !window.longer_safe; ++p) {
            const auto found = at.find({window.family, p});
            if (design.points[p].node != window.node || found == at.end() ||
                !found->second.violating_sizes.contains(window.shortest_size))
                continue;
            for (std::size_t s = 0; s < sizes.size() && !window.longer_safe; ++s)
                if (longer_size(sizes[s], sizes[window.shortest_size]) && !found->second.violating_sizes.contains(s))
                    window.longer_safe = FaultChoice{window.family, p, s};
        }
    }
    return windows;
}

namespace {

// What the family's key holds: the node (a role as {"role": "holder"}), [node, other] for a
// link, or [[node], [the other side]] for a partition that cuts it off from some nodes only.
nlohmann::ordered_json target_json(const FaultFamilyPlan& family, const std::string& node) {
    const Role* role = role_of(node);
    const nlohmann::ordered_json target =
        role ? nlohmann::ordered_json{{"role", role->name}} : nlohmann::ordered_json(node);
    if (family.apart_from.empty()) return target;
    if (explore_shape(family.kind)->one_other_node)
        return nlohmann::ordered_json::array({target, family.apart_from[0]});
    return nlohmann::ordered_json::array({nlohmann::ordered_json::array({target}), family.apart_from});
}

// The members besides the target, the time and the size: a pause's cause, a one-way cut,
// a loss burst's odds.
void add_details(const FaultFamilyPlan& family, nlohmann::ordered_json& fault) {
    if (!family.cause.empty()) fault["kind"] = family.cause;  // a pause's
    if (family.one_way) fault["one_way"] = true;
    if (family.loss) fault["loss"] = fmt::format("{}/{}", family.loss->numerator, family.loss->denominator);
}

}  // namespace

std::vector<std::string_view> FaultFamilyPlan::assumptions() const {
    if (lengths)
        return {"nodes share nothing but messages",
                "the checkers compare events of different nodes only among grants, beliefs, jobs, effects, crashes "
                "and pauses",
                "every decision a model takes shows in its trace", "random draws go by count, never by time",
                "clocks are affine in true time (to 1 ns with a drift)"};
    if (size_range)
        return {"a later start in a start class acts as its first instant", "nodes share nothing but messages",
                "every decision a model takes shows in its trace", "random draws go by count, never by time"};
    return {};
}

std::string FaultFamilyPlan::name() const {
    const std::string shape_name(explore_shape(kind)->name);
    return (cause.empty() ? "" : cause + " ") + (one_way ? "one-way " : "") + shape_name;
}

std::string FaultFamilyPlan::targets_text() const {
    std::vector<std::string> named;
    for (const auto& target : targets) named.push_back(target_words(target));
    std::string text = fmt::format("{}", fmt::join(named, ", "));
    if (!apart_from.empty()) {
        std::string field(explore_shape(kind)->other_side_field);
        std::replace(field.begin(), field.end(), '_', ' ');
        text += fmt::format(" {} {}", field, fmt::join(apart_from, ", "));
    }
    if (loss) text += fmt::format(" (loss {}/{})", loss->numerator, loss->denominator);
    if (one_way) text += " (one way: only what the target sends)";
    return text;
}

nlohmann::ordered_json fault_object(const DesignExploration& design, const FaultChoice& choice) {
    const FaultFamilyPlan& family = design.families[choice.family];
    const StrikePoint& point = design.points[choice.point];
    nlohmann::ordered_json fault;
    fault[family.kind] = target_json(family, point.node);
    if (const auto& size = family.sizes[choice.size]) fault[family.size_field] = format_duration(*size);
    add_details(family, fault);
    fault["when"] = {{"event", point.kind}, {"node", point.node}, {"nth", point.nth}};
    return fault;
}

nlohmann::ordered_json region_fault(const DesignExploration& design, const FaultRegion& region) {
    const FaultFamilyPlan& family = design.families[region.family];
    nlohmann::ordered_json fault;
    fault[family.kind] = target_json(family, region.node);
    fault["at"] = format_duration(region.example_start - Instant{});
    fault[family.size_field] = format_duration(region.example_size);
    add_details(family, fault);
    return fault;
}

nlohmann::ordered_json placement_faults(const DesignExploration& design, const PlacementOutcome& placement) {
    auto faults = nlohmann::ordered_json::array();
    for (const auto& choice : placement.faults) faults.push_back(fault_object(design, choice));
    return faults;
}

Vocabulary words_of(const DesignExploration& design) {
    return vocabulary_of(design.baseline);
}

Vocabulary words_of(const Exploration& exploration) {
    return exploration.designs.empty() ? Vocabulary{} : words_of(exploration.designs.front());
}

}  // namespace locksim
