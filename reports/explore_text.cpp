#include "reports/explore_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "checks/command_line.hpp"
#include "checks/metric_words.hpp"
#include "checks/run_outcome.hpp"
#include "models/faults/fault.hpp"
#include "models/trace_kinds.hpp"
#include "reports/event_text.hpp"
#include "reports/text_wrap.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

std::string signed_size_text(Duration size) {
    return size.ns > 0 ? "+" + format_duration(size) : format_duration(size);
}

namespace {

// "pause of 1s, 10s, ttl+1ms (30.001s)"
std::string family_text(const FaultFamilyPlan& family) {
    if (family.lengths)
        return fmt::format("{} every length from {} to {} on {}, exactly: every start against every end",
                           explore_shape(family.kind)->listing, format_duration(family.lengths->shortest),
                           format_duration(family.lengths->longest), family.targets_text());
    if (family.size_range)
        return fmt::format(
            "{} every size from {} to {} on {}, at the first instant of every start class, refined to 1 ms",
            explore_shape(family.kind)->listing, signed_size_text(family.size_range->from),
            signed_size_text(family.size_range->to), family.targets_text());
    std::vector<std::string> sizes;
    for (std::size_t s = 0; s < family.sizes.size(); ++s) {
        const auto& size = family.sizes[s];
        if (!size) {
            sizes.push_back(fmt::format("never (it {})", explore_shape(family.kind)->no_end));
            continue;
        }
        const std::string value = format_duration(*size);
        sizes.push_back(value == family.size_texts[s] ? value : fmt::format("{} ({})", family.size_texts[s], value));
    }
    return fmt::format("{} {} on {}", explore_shape(family.kind)->listing, fmt::join(sizes, ", "),
                       family.targets_text());
}

std::string size_text(const FaultFamilyPlan& family, std::size_t s) {
    const auto& size = family.sizes[s];
    const std::string value = size ? format_duration(*size) : std::string(explore_shape(family.kind)->no_end_gerund);
    return value == family.size_texts[s] || !size ? value : fmt::format("{} ({})", value, family.size_texts[s]);
}

// How many placements ran, over every design. A pruned one strikes the same node at the
// same place in the run's queue as one that ran (checks/equivalent_placements.hpp).
std::string pruning_text(const Exploration& exploration) {
    std::uint64_t planned = 0;
    std::uint64_t run = 0;
    for (const auto& design : exploration.designs) {
        planned += design.placements.size();
        run += design.placements_run;
    }
    if (planned == 0) return "";  // every family explored over a range: the regions say how many runs
    if (run == planned) return fmt::format("  ran every one of the {} placements\n", grouped(planned));
    return fmt::format("  ran {} of {} placements; {} pruned as the same run as one that ran (--no-prune runs them)\n",
                       grouped(run), grouped(planned), grouped(planned - run));
}

// The most regions a design's text lists; --format json has them all.
constexpr std::size_t regions_listed = 12;

std::string regions_text(const Exploration& exploration, const DesignExploration& design, const std::string& program,
                         const TextStyle& style) {
    bool by_ends = false, by_sizes = false;
    for (const auto& family : design.families) {
        by_ends = by_ends || family.lengths.has_value();
        by_sizes = by_sizes || family.size_range.has_value();
    }
    if (!by_ends && !by_sizes) return "";
    // A sized family's promise is narrower than a family with an end's (runners/size_regions.hpp).
    const std::string how =
        by_ends && by_sizes ? "exact over every start and end whatever the delays; clock steps to 1 ms at each start "
                              "class's first instant"
        : by_ends           ? "exact over every start and end whatever the delays"
                            : "sizes to 1 ms at each start class's first instant, not between them";
    std::string out =
        design.regions.empty()
            ? fmt::format("  {} ({} runs): {}\n", how, grouped(design.region_runs), style.good("no fault violates"))
            : fmt::format("  {} ({} runs): {} region{} where a fault violates\n", how, grouped(design.region_runs),
                          design.regions.size(), design.regions.size() == 1 ? "" : "s");
    // What that rests on, once per kind of promise (docs/explore.md, "What it assumes").
    std::set<std::vector<std::string_view>> said;
    for (const auto& family : design.families)
        if (family.ranged() && said.insert(family.assumptions()).second)
            for (const std::string& line :
                 wrapped_lines(fmt::format("assuming {} (docs/explore.md)", fmt::join(family.assumptions(), "; ")), 96))
                out += "  " + style.quiet(line) + "\n";
    if (design.regions.empty()) return out;
    for (std::size_t r = 0; r < design.regions.size() && r < regions_listed; ++r) {
        const FaultRegion& region = design.regions[r];
        const FaultFamilyPlan& family = design.families[region.family];
        out += fmt::format("  R{}. {} on {}: a {} that {}\n", r + 1,
                           style.violation(violations_in_words(region.violations, words_of(design))),
                           target_words(region.node), family.name(), region_text(region));
        out += "      replay: " + region_replay(exploration, design, region, program) + "\n";
    }
    if (design.regions.size() > regions_listed)
        out += style.quiet(fmt::format("  … and {} more regions (--format json lists them all)\n",
                                       design.regions.size() - regions_listed));
    return out;
}

}  // namespace

std::string placement_replay(const Exploration& exploration, const DesignExploration& design, const FaultChoice& choice,
                             const std::string& program) {
    auto faults = nlohmann::ordered_json::array();
    faults.push_back(fault_object(design, choice));
    return replay_command(program, exploration.file, exploration.seed, design.name, faults.dump());
}

std::string region_replay(const Exploration& exploration, const DesignExploration& design, const FaultRegion& region,
                          const std::string& program) {
    auto faults = nlohmann::ordered_json::array();
    faults.push_back(region_fault(design, region));
    return replay_command(program, exploration.file, exploration.seed, design.name, faults.dump());
}

std::vector<std::string> first_violations(const Exploration& exploration, const DesignExploration& design,
                                          const std::string& program) {
    std::vector<std::string> lines;
    const auto first = std::find_if(design.placements.begin(), design.placements.end(),
                                    [](const PlacementOutcome& p) { return p.violations != 0; });
    if (first != design.placements.end()) {
        const std::string faults = placement_faults(design, *first).dump();
        lines.push_back(fmt::format("first violating placement: {} after {} ({}); replay: {}",
                                    violations_in_words(first->violations, words_of(design)),
                                    describe_strike_point(design, first->faults.front().point), faults,
                                    replay_command(program, exploration.file, exploration.seed, design.name, faults)));
    }
    if (!design.regions.empty()) {
        const FaultRegion& region = design.regions.front();
        lines.push_back(fmt::format("first violating region: {} on {}, {}; replay: {}",
                                    violations_in_words(region.violations, words_of(design)), target_words(region.node),
                                    region_text(region), region_replay(exploration, design, region, program)));
    }
    return lines;
}

std::string placements_and_regions(const DesignExploration& design, Metric kind) {
    const std::uint64_t regions = design.regions_showing(kind);
    if (regions == 0) return grouped(design.count_of(kind));
    return fmt::format("{} + {} region{}", grouped(design.count_of(kind)), grouped(regions), regions == 1 ? "" : "s");
}

std::string region_text(const FaultRegion& region) {
    // A sized family's region holds the one start instant tried (runners/size_regions.hpp).
    if (region.size)
        return fmt::format("strikes at {}, by {} to {}", format_duration(region.start.from - Instant{}),
                           signed_size_text(region.size->from), signed_size_text(region.size->to));
    return fmt::format("starts {} to {}, ends {} to {}", format_seconds(region.start.from),
                       format_seconds(region.start.to), format_seconds(region.end.from), format_seconds(region.end.to));
}

std::string describe_strike_point(const DesignExploration& design, std::size_t point) {
    const StrikePoint& at = design.points[point];
    const TraceEvent& event = design.baseline.events()[at.sequence];
    const Trace& trace = design.baseline;
    std::string what;
    if (event.kind == trace_kind::message_sent)
        what = fmt::format("sends \"{}\" to {}", event.text("label"), trace.node_name(event.node_ref("to")));
    else if (event.kind == trace_kind::message_delivered)
        what = fmt::format("receives \"{}\" from {}", event.text("label"), trace.node_name(event.node_ref("from")));
    else if (const auto text = describe_event(event, trace))
        what = text->text;
    else
        what = fmt::format("records {}", event.kind);
    return fmt::format("{} {} (e{}, {})", at.node, what, at.sequence, format_seconds(at.at));
}

std::string render_explore_text(const Exploration& exploration, const std::string& program, const TextStyle& style) {
    std::string out =
        style.heading(exploration.name) +
        fmt::format(" · explore, {} · seed {}\n", exploration.depth == 1 ? "one fault per run" : "every pair of faults",
                    exploration.seed);
    if (!exploration.designs.empty())
        for (const auto& family : exploration.designs.front().families) out += "  tries " + family_text(family) + "\n";
    out += pruning_text(exploration) + "\n";

    // A column per kind of violation that some design shows, at a listed size or in a region.
    std::vector<Metric> kinds;
    for (const Metric kind : violation_metrics())
        if (std::any_of(exploration.designs.begin(), exploration.designs.end(), [kind](const DesignExploration& d) {
                return d.count_of(kind) > 0 || d.regions_showing(kind) > 0;
            }))
            kinds.push_back(kind);
    std::vector<std::vector<std::string>> rows{{"design", "strike points", "placements", "run", "violating"}};
    for (const Metric kind : kinds) rows.front().emplace_back(metric_many(kind, words_of(exploration)));
    rows.front().push_back(exploration.depth == 1 ? "windows" : "");
    bool ranged = false;
    for (const auto& design : exploration.designs)
        for (const auto& family : design.families) ranged = ranged || family.ranged();
    if (ranged) rows.front().push_back("regions");
    for (const auto& design : exploration.designs) {
        // A range's regions are not placements: a 0 beside them is not green, and each kind's
        // column adds the regions that show it ("0 + 20 regions"), as the vulnerability map does.
        const std::uint64_t violating = design.violating();
        const std::string violating_cell = violating != 0           ? style.violation(grouped(violating))
                                           : design.regions.empty() ? style.good("0")
                                                                    : std::string("0");
        std::vector<std::string> row{design.name, grouped(design.points.size()), grouped(design.placements.size()),
                                     grouped(design.placements_run), violating_cell};
        for (const Metric kind : kinds) row.push_back(placements_and_regions(design, kind));
        row.push_back(exploration.depth == 1 ? grouped(design.windows.size()) : "");
        if (ranged)
            row.push_back(design.regions.empty() ? style.good("0") : style.violation(grouped(design.regions.size())));
        rows.push_back(std::move(row));
    }
    out += text_table(rows, style);

    for (const auto& design : exploration.designs) {
        out += "\n" + style.heading(design.name);
        if (design.baseline_violations != 0)
            out += style.violation(fmt::format(" · violates even without faults ({})",
                                               violations_in_words(design.baseline_violations, words_of(design))));
        if (exploration.depth == 2) {
            out += fmt::format(
                ": {} pairs tried ({} ordered pairs skipped: mirror images and a placement paired with "
                "itself), {} violate\n",
                grouped(design.placements.size()), grouped(design.repeated_pairs), grouped(design.violating()));
            continue;
        }
        if (design.windows.empty()) {
            out += design.placements.empty() ? std::string("\n")
                                             : ": " + style.good("no placement violates") +
                                                   (design.regions.empty() ? "" : " (the regions below do)") + "\n";
            out += regions_text(exploration, design, program, style);
            continue;
        }
        out += fmt::format(": {} window{}\n", design.windows.size(), design.windows.size() == 1 ? "" : "s");
        for (std::size_t w = 0; w < design.windows.size(); ++w) {
            const ExploreWindow& window = design.windows[w];
            const FaultFamilyPlan& family = design.families[window.family];
            out += fmt::format("  {}. {} on {}, {} to {}: {} (shortest {}: {})\n", w + 1,
                               style.violation(violations_in_words(window.violations, words_of(design))), window.node,
                               format_seconds(design.points[window.first].at),
                               format_seconds(design.points[window.last].at),
                               fmt::format("{} violating placement{}", window.violating_placements,
                                           window.violating_placements == 1 ? "" : "s"),
                               family.kind, size_text(family, window.shortest_size));
            out += "     opens after  " + describe_strike_point(design, window.first) + "\n";
            out += "     closes after " + describe_strike_point(design, window.last) + "\n";
            if (window.safe_after)
                out += style.quiet("     safe again after " + describe_strike_point(design, *window.safe_after)) + "\n";
            out += "     replay: " +
                   placement_replay(exploration, design, FaultChoice{window.family, window.first, window.first_size},
                                    program) +
                   "\n";
        }
        out += regions_text(exploration, design, program, style);
    }
    std::size_t failed = 0;
    for (const auto& design : exploration.designs) {
        if (design.held()) continue;
        for (const auto& result : design.expectations)
            if (!result.held) {
                ++failed;
                out += style.violation(fmt::format("FAIL {} {}: {}", exploration.name, design.name,
                                                   describe_failure(result, words_of(design)))) +
                       "\n";
            }
        for (const auto& line : first_violations(exploration, design, program)) out += "  " + line + "\n";
    }
    if (failed == 0)
        for (const auto& design : exploration.designs)
            if (!design.expectations.empty()) {
                out += "\n" + style.good("Every explore expectation held.") + "\n";
                break;
            }
    return out;
}

}  // namespace locksim
