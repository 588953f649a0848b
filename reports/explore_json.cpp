#include "reports/explore_json.hpp"

#include "models/faults/fault_roles.hpp"
#include "reports/explore_text.hpp"
#include "reports/result_json.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

using Json = nlohmann::ordered_json;

Json placement_json(const DesignExploration& design, const FaultChoice& choice) {
    Json placement;
    placement["strikes_at"] = format_seconds(design.points[choice.point].at);
    placement["after"] = describe_strike_point(design, choice.point);
    placement["fault"] = fault_object(design, choice);
    return placement;
}

Json window_json(const DesignExploration& design, const ExploreWindow& window) {
    const FaultFamilyPlan& family = design.families[window.family];
    Json out;
    out["node"] = window.node;
    out["fault"] = family.kind;
    out["from"] = format_seconds(design.points[window.first].at);
    out["to"] = format_seconds(design.points[window.last].at);
    out["shortest"] = family.size_texts[window.shortest_size];
    // A longer size safe where the shortest violates, or null: every longer size tried
    // violates wherever the shortest does.
    out["longer_safe"] = window.longer_safe ? placement_json(design, *window.longer_safe) : Json(nullptr);
    out["violations"] = violation_names(window.violations);
    out["violating_placements"] = window.violating_placements;
    out["first_violating"] = placement_json(design, FaultChoice{window.family, window.first, window.first_size});
    out["last_violating"] = placement_json(design, FaultChoice{window.family, window.last, window.last_size});
    // Safe for every size: shown with the size that violates on the window's side.
    out["last_safe_before"] =
        window.safe_before ? placement_json(design, FaultChoice{window.family, *window.safe_before, window.first_size})
                           : Json(nullptr);
    out["first_safe_after"] =
        window.safe_after ? placement_json(design, FaultChoice{window.family, *window.safe_after, window.last_size})
                          : Json(nullptr);
    return out;
}

// Exact instants: a region's edges are where the outcome changes, to the nanosecond.
Json range_json(const InstantRange& range) {
    return Json{{"from", format_duration(range.from - Instant{})}, {"to", format_duration(range.to - Instant{})}};
}

Json region_json(const DesignExploration& design, const FaultRegion& region) {
    Json out;
    if (const Role* role = role_of(region.node))
        out["node"] = {{"role", role->name}};
    else
        out["node"] = region.node;
    out["fault"] = design.families[region.family].kind;
    out["violations"] = violation_names(region.violations);
    out["start"] = range_json(region.start);
    if (region.size)  // both tried sizes, both included
        out["size"] = Json{{"from", format_duration(region.size->from)}, {"to", format_duration(region.size->to)}};
    else
        out["end"] = range_json(region.end);
    out["example"] = region_fault(design, region);
    return out;
}

}  // namespace

nlohmann::ordered_json explore_json(const Exploration& exploration, bool every_placement) {
    Json out;
    out["scenario"] = exploration.name;
    out["file"] = exploration.file;
    out["seed"] = exploration.seed;
    out["depth"] = exploration.depth;
    out["designs"] = Json::array();
    for (const auto& design : exploration.designs) {
        Json d;
        d["name"] = design.name;
        d["strike_points"] = design.points.size();
        d["violates_without_faults"] = violation_names(design.baseline_violations);
        Json families = Json::array();
        for (const auto& family : design.families) {
            Json sizes = Json::array();
            for (std::size_t s = 0; s < family.sizes.size(); ++s) {
                Json size;
                size["as_written"] = family.size_texts[s];
                size["value"] = family.sizes[s] ? Json(format_duration(*family.sizes[s])) : Json(nullptr);
                sizes.push_back(size);
            }
            Json entry{{"fault", family.kind}, {"targets", family.targets}};
            if (family.lengths)
                entry["lengths"] = Json{{"from", format_duration(family.lengths->shortest)},
                                        {"to", format_duration(family.lengths->longest)}};
            else if (family.size_range)
                entry["size_range"] = Json{{"from", format_duration(family.size_range->from)},
                                           {"to", format_duration(family.size_range->to)}};
            else
                entry["sizes"] = sizes;
            if (family.ranged()) {
                entry["rests_on"] = Json::array();
                for (const std::string_view assumption : family.assumptions())
                    entry["rests_on"].push_back(std::string(assumption));
            }
            families.push_back(std::move(entry));
        }
        d["faults"] = families;
        d["placements"] = design.placements.size();
        d["placements_run"] = design.placements_run;
        d["placements_pruned"] = design.placements_pruned();  // each shares an equivalent run's outcome
        d["pruned"] = design.repeated_pairs;                  // depth 2: the ordered pairs never planned
        d["violating_placements"] = design.violating();
        Json by_kind = Json::object();
        for (const Metric kind : violation_metrics()) by_kind[std::string(metric_name(kind))] = design.count_of(kind);
        d["placements_by_violation"] = by_kind;
        if (exploration.depth == 1) {
            d["windows"] = Json::array();
            for (const auto& window : design.windows) d["windows"].push_back(window_json(design, window));
        } else {
            // Pairs do not line up in time; the violating ones are listed instead.
            d["violating_pairs"] = Json::array();
            for (const auto& placement : design.placements)
                if (placement.violations != 0)
                    d["violating_pairs"].push_back(Json{{"faults", placement_faults(design, placement)},
                                                        {"violations", violation_names(placement.violations)}});
        }
        d["region_runs"] = design.region_runs;
        d["regions"] = Json::array();
        for (const auto& region : design.regions) d["regions"].push_back(region_json(design, region));
        d["expectations"] = expectations_json(design.expectations);
        if (every_placement) {
            d["every_placement"] = Json::array();
            for (const auto& placement : design.placements)
                d["every_placement"].push_back(Json{{"faults", placement_faults(design, placement)},
                                                    {"violations", violation_names(placement.violations)}});
        }
        out["designs"].push_back(std::move(d));
    }
    out["held"] = exploration.held();
    return out;
}

}  // namespace locksim
