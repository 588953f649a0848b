#include "runners/explore_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cassert>
#include <limits>
#include <map>
#include <numeric>
#include <set>

#include "checks/equivalent_placements.hpp"
#include "checks/explore_shard.hpp"
#include "checks/explore_verdict.hpp"
#include "checks/metrics.hpp"
#include "models/world/world.hpp"
#include "reports/text_style.hpp"
#include "runners/fault_regions.hpp"
#include "runners/parallel_runs.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/shard_advice.hpp"
#include "runners/size_regions.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// The design's world without the file's faults, placed or drawn: what explore runs bare
// and adds its own faults to.
WorldSpec without_faults(const Design& design) {
    WorldSpec world = design.world;
    world.faults.clear();
    world.fault_generators.clear();
    return world;
}

// A size taken from the TTL, held to the family's bound (NTP slews under 128 ms) as a
// fixed size is when the file is read.
void hold_to_bound(const ExploreShape& shape, const SizeExpression& size, Duration value, const Design& design) {
    const AmountRule& rule = shape.size_rule;
    if (rule.beyond(value, value))
        throw ExploreError(
            fmt::format("design \"{}\": the {} size \"{}\" comes to {} with this design's TTL of {}, "
                        "beyond {} either way: {}",
                        design.name, shape.key, size.text, format_duration_rounded(value),
                        format_duration(design.world.lock.ttl), format_duration(rule.bound), rule.bound_help));
}

FaultFamilyPlan resolve(const ExploreFaultFamily& family, const Design& design) {
    const ExploreShape& shape = *family.shape;
    FaultFamilyPlan plan{std::string(shape.key), std::string(shape.size_field), family.cause, family.targets, {}, {}};
    plan.apart_from = family.apart_from;
    plan.one_way = family.one_way;
    plan.loss = family.loss;
    if (family.range) {
        // A family with an end takes lengths above zero; a clock step, signed sizes.
        const bool lengths = !shape.sized_range;
        const Duration from = family.range->from.resolve(design.world.lock.ttl);
        const Duration to = family.range->to.resolve(design.world.lock.ttl);
        if (lengths ? (from.ns <= 0 || to < from) : to <= from)
            throw ExploreError(fmt::format(
                "design \"{}\": the {} {} from \"{}\" to \"{}\" come to {} to {} with this design's TTL of "
                "{}; give a range of {}",
                design.name, plan.kind, lengths ? "lengths" : "sizes", family.range->from.text, family.range->to.text,
                format_duration_rounded(from), format_duration_rounded(to), format_duration(design.world.lock.ttl),
                lengths ? "lengths above zero, the shorter first" : "sizes, the lower first"));
        hold_to_bound(shape, family.range->from, from, design);
        hold_to_bound(shape, family.range->to, to, design);
        if (lengths)
            plan.lengths = LengthSpan{from, to};
        else
            plan.size_range = SizeSpan{from, to};
        return plan;
    }
    for (const auto& size : family.sizes) {
        if (!size) {
            plan.sizes.push_back(std::nullopt);
            plan.size_texts.push_back("null");
            continue;
        }
        const Duration value = size->resolve(design.world.lock.ttl);
        const bool positive_needed = !shape.size_rule.signed_values;
        if ((positive_needed && value.ns <= 0) || (!positive_needed && value.ns == 0))
            throw ExploreError(
                fmt::format("design \"{}\": the {} size \"{}\" comes to {} with this design's TTL of "
                            "{}; give sizes that stay above zero",
                            design.name, plan.kind, size->text, format_duration_rounded(value),
                            format_duration(design.world.lock.ttl)));
        hold_to_bound(shape, *size, value, design);
        plan.sizes.push_back(value);
        plan.size_texts.push_back(size->text);
    }
    return plan;
}

// Every event of a target node in the run without faults, in trace order.
std::vector<StrikePoint> strike_points(const RunResult& baseline, const std::vector<FaultFamilyPlan>& families) {
    std::set<std::string> targets;
    for (const auto& family : families) targets.insert(family.targets.begin(), family.targets.end());
    std::vector<StrikePoint> points;
    std::map<std::pair<std::string, std::string>, int> seen;  // (node, kind) -> events so far
    for (const auto& event : baseline.trace.events()) {
        if (event.node == no_node) continue;
        const std::string node = baseline.trace.node_name(event.node);
        if (!targets.contains(node)) continue;
        const int nth = ++seen[{node, std::string(event.kind)}];
        points.push_back(StrikePoint{node, event.sequence, event.at, std::string(event.kind), nth,
                                     baseline.queue_places[event.sequence]});
    }
    return points;
}

Fault to_fault(const DesignExploration& design, const FaultChoice& choice) {
    const FaultFamilyPlan& family = design.families[choice.family];
    const StrikePoint& point = design.points[choice.point];
    const EventTrigger when{point.kind, point.node, {}, point.nth};
    const auto& size = family.sizes[choice.size];
    return explored_fault(family.kind, point.node, when, size, family.details());
}

std::vector<PlacementOutcome> plan_placements(const DesignExploration& design, int depth,
                                              std::uint64_t& repeated_pairs) {
    std::vector<PlacementOutcome> single;
    for (std::size_t f = 0; f < design.families.size(); ++f) {
        const auto& family = design.families[f];
        for (std::size_t p = 0; p < design.points.size(); ++p) {
            if (std::find(family.targets.begin(), family.targets.end(), design.points[p].node) == family.targets.end())
                continue;
            for (std::size_t s = 0; s < family.sizes.size(); ++s)
                single.push_back(PlacementOutcome{{FaultChoice{f, p, s}}, 0});
        }
    }
    const auto n = static_cast<std::uint64_t>(single.size());
    if (depth == 1) {
        if (n > max_explore_placements)
            throw ExploreError(
                fmt::format("design \"{}\": {} placements ({} strike points), more than the {} "
                            "locksim tries; name fewer targets or sizes, or give a family with an end a range of "
                            "lengths, {{\"from\", \"to\"}}, which is explored exactly and shards",
                            design.name, grouped(n), grouped(design.points.size()), grouped(max_explore_placements)));
        return single;
    }
    // Depth 2: every unordered pair of different single placements, n(n-1)/2 of them; the
    // ordered pairs that repeat a set already tried (its mirror, or one placement twice)
    // are never planned.
    const std::uint64_t pairs = n * (n - (n > 0 ? 1 : 0)) / 2;
    if (pairs > max_explore_placements)
        throw ExploreError(
            fmt::format("design \"{}\": depth 2 pairs {} single placements into {} runs (n(n-1)/2), "
                        "more than the {} locksim tries; name fewer targets or sizes, or use "
                        "depth 1",
                        design.name, grouped(n), grouped(pairs), grouped(max_explore_placements)));
    repeated_pairs = n * n - pairs;
    std::vector<PlacementOutcome> both;
    both.reserve(pairs);
    for (std::uint64_t a = 0; a < n; ++a)
        for (std::uint64_t b = a + 1; b < n; ++b)
            both.push_back(PlacementOutcome{{single[a].faults.front(), single[b].faults.front()}, 0});
    return both;
}

// An exploration planned: its designs' placements and start classes, the units of its work.
struct ExploreWork {
    Exploration exploration;
    std::vector<const Design*> designs;
    std::vector<std::vector<std::size_t>> same_runs;  // per design and placement: the one that runs for it
    std::vector<std::vector<std::size_t>> to_run;     // per design: the placements that run
    // Per design and family: the start classes of a family explored over a range (else none).
    std::vector<std::vector<std::vector<StartClass>>> classes;
    std::uint64_t total = 0;  // units
};

ExploreWork plan_exploration(const Scenario& scenario, const ExploreOptions& options) {
    const ExploreSpec& spec = *scenario.explore;
    const std::uint64_t seed = options.seed.value_or(scenario.seed);
    ExploreWork work;
    work.exploration = Exploration{scenario.file, scenario.name, seed, spec.depth, {}};
    for (const auto& design : scenario.designs) {
        if (options.design && design.name != *options.design) continue;
        const WorldSpec quiet = without_faults(design);
        RunResult baseline = [&] {
            try {
                return run_world(quiet, seed, RunOptions{.event_limit = options.event_limit, .queue_places = true});
            } catch (const RunawayRun& runaway) {
                throw RunawayRun(fmt::format("design \"{}\", without faults: {}", design.name, runaway.what()));
            }
        }();
        DesignExploration explored;
        explored.name = design.name;
        explored.purpose = design.purpose;
        explored.baseline_violations =
            judge_design(design, check_trace(baseline.trace, baseline.summary.ended_at)).violations;
        explored.baseline_end = baseline.summary.ended_at;
        for (const auto& family : spec.faults) explored.families.push_back(resolve(family, design));
        explored.points = strike_points(baseline, explored.families);
        explored.baseline = std::move(baseline.trace);
        explored.placements = plan_placements(explored, spec.depth, explored.repeated_pairs);
        // Each set of equivalent placements runs once, as its first; the others share its outcome.
        std::vector<std::size_t> same(explored.placements.size());
        if (options.prune)
            same = same_run_as(explored);
        else
            std::iota(same.begin(), same.end(), std::size_t{0});
        std::vector<std::size_t> runs;
        for (std::size_t k = 0; k < same.size(); ++k)
            if (same[k] == k) runs.push_back(k);
        explored.placements_run = runs.size();
        auto& classes = work.classes.emplace_back(explored.families.size());
        work.total += runs.size();
        for (std::size_t f = 0; f < explored.families.size(); ++f) {
            if (!explored.families[f].ranged()) continue;
            classes[f] = family_start_classes(explored, f);
            work.total += classes[f].size();
        }
        work.exploration.designs.push_back(std::move(explored));
        work.designs.push_back(&design);
        work.same_runs.push_back(std::move(same));
        work.to_run.push_back(std::move(runs));
    }
    return work;
}

// The part of `block` that falls among the `count` units from `offset`, as positions
// among those units (from 0).
SeedBlock overlap(SeedBlock block, std::uint64_t offset, std::uint64_t count) {
    const std::uint64_t from = std::max(block.first, offset);
    const std::uint64_t to = std::min(block.first + block.count, offset + count);
    return from < to ? SeedBlock{from - offset, to - from} : SeedBlock{0, 0};
}

// The events of a design's run without faults, at which each of its runs is counted.
std::uint64_t events_per_run(const DesignExploration& design) {
    return std::max<std::uint64_t>(design.baseline.events().size(), 1);
}

// What each unit of `block` costs against the limit on region runs: a placement nothing
// (it is not a region run), a start class the runs it plans. Each class over a range of
// lengths makes its held run for this, in parallel; only a refusal asks.
std::vector<std::uint64_t> unit_costs(const ExploreWork& work, const ExploreOptions& options, SeedBlock block) {
    std::vector<std::uint64_t> costs(block.count, 0);
    std::uint64_t offset = 0;
    for (std::size_t d = 0; d < work.exploration.designs.size(); ++d) {
        const DesignExploration& explored = work.exploration.designs[d];
        offset += work.to_run[d].size();
        const WorldSpec quiet = without_faults(*work.designs[d]);
        const RegionSearch search{.design = work.designs[d],
                                  .quiet = &quiet,
                                  .seed = work.exploration.seed,
                                  .event_limit = options.event_limit,
                                  .threads = options.threads};
        for (std::size_t f = 0; f < explored.families.size(); ++f) {
            const auto& classes = work.classes[d][f];
            const SeedBlock these = overlap(block, offset, classes.size());
            run_in_parallel(
                these.count, options.threads,
                [&](std::uint64_t k, unsigned) {
                    const StartClass& starts = classes[these.first + k];
                    costs[offset + these.first + k - block.first] =
                        explored.families[f].size_range ? size_class_runs_planned(explored, f, starts, search)
                                                        : start_class_runs_planned(explored, f, starts, search);
                },
                [&](std::uint64_t done) { options.progress(done, these.count); });
            offset += classes.size();
        }
    }
    return costs;
}

// A refusal that says `what` passed a limit, then how many shards bring each under it
// (`parts` of this shard's block, or none), else `remedy` alone.
ExploreError refusal_with_shards(const std::string& what, std::optional<std::uint32_t> parts,
                                 const ExploreOptions& options, const std::string& command, const std::string& remedy) {
    const std::uint64_t shards = parts ? std::uint64_t{*parts} * options.shards : 0;
    if (!parts || shards > std::numeric_limits<std::uint32_t>::max())
        return ExploreError(fmt::format("{}, and no number of shards brings each unit under it: {}", what, remedy));
    // With shards already, this one's block splits into `parts` of the finer count's shards
    // (shard_block's cuts nest); the other shards' units may need more.
    const std::string whose =
        options.shards > 1 ? " (what this shard's units need; each other shard says its own)" : "";
    return ExploreError(fmt::format(
        "{}; shard it: {} --shard 1/{} and so on to {}/{}{} (on Slurm: SHARDS={} scripts/sweep.sbatch FILE explore "
        "DIR), then locksim merge the shards; or {}",
        what, command, shards, shards, shards, whose, shards, remedy));
}

// The most start classes whose runs a refusal counts by running them (a few seconds of runs
// in the shipped files).
constexpr std::uint64_t max_classes_costed = 20'000;

// The start classes of `block` over a range of lengths: each costs a run to count.
std::uint64_t classes_run_to_cost(const ExploreWork& work, SeedBlock block) {
    std::uint64_t count = 0;
    std::uint64_t offset = 0;
    for (std::size_t d = 0; d < work.exploration.designs.size(); ++d) {
        offset += work.to_run[d].size();
        for (std::size_t f = 0; f < work.classes[d].size(); ++f) {
            const std::uint64_t classes = work.classes[d][f].size();
            if (!work.exploration.designs[d].families[f].size_range) count += overlap(block, offset, classes).count;
            offset += classes;
        }
    }
    return count;
}

// The refusal of a shard (or a whole exploration) whose region runs pass the limit, with a
// number of shards under which each passes (runners/shard_advice.hpp) counted from the
// costs of all its units.
ExploreError refusal_past_limit(const RegionRunsPastLimit& past, const ExploreWork& work, const ExploreOptions& options,
                                SeedBlock block, const std::string& command) {
    const std::uint64_t limit = options.region_run_limit;
    const std::uint64_t total = past.before + past.planned;
    const std::string what = fmt::format(
        "design \"{}\": exploring {} exactly takes at least {} runs ({} start classes{}){}, more than the {} one "
        "explore may plan",
        past.design, past.family, grouped(past.planned), grouped(past.classes),
        options.shards > 1 ? " in this shard" : "",
        past.before == 0 ? std::string()
                         : fmt::format(", after {} for the families explored before it: {} in all",
                                       grouped(past.before), grouped(total)),
        grouped(limit));
    // Counting a class's runs takes its held run: past a few seconds of them the refusal
    // would cost what it refuses, and gives the lower bound instead.
    if (classes_run_to_cost(work, block) > max_classes_costed) {
        const std::uint64_t fewest = (total + limit - 1) / limit * options.shards;
        return ExploreError(fmt::format(
            "{}; shard it into at least {} shards: {} --shard 1/{} and so on, then locksim merge the shards (each "
            "shard refused says what its own units need); or narrow the range or name fewer targets",
            what, fewest, command, fewest));
    }
    return refusal_with_shards(what, shards_that_pass(unit_costs(work, options, block), limit), options, command,
                               "narrow the range or name fewer targets");
}

// The runs one start class will take, as far as the run without faults tells before any
// runs: over a range of sizes, what it plans (from that run alone); over a range of lengths,
// its held run and both ends of each gap between the events the run without faults has
// among its ends (the held run's own events, which plan it, are those and the fault's).
std::uint64_t class_runs_foreseen(const DesignExploration& design, std::size_t family, const StartClass& starts) {
    const FaultFamilyPlan& plan = design.families[family];
    if (plan.size_range) return size_class_runs_planned(design, family, starts, RegionSearch{});
    const auto& events = design.baseline.events();
    const auto at_or_after = [&](Instant at) {
        return std::partition_point(events.begin(), events.end(), [at](const TraceEvent& e) { return e.at < at; });
    };
    const auto among =
        at_or_after(starts.last + plan.lengths->longest) - at_or_after(starts.first + plan.lengths->shortest);
    return 2 * static_cast<std::uint64_t>(among) + 3;
}

// The events a shard processes, as foreseen before it runs: each unit's runs (a placement's
// one, a start class's class_runs_foreseen) times the events of its design's run without
// faults.
std::vector<std::uint64_t> unit_events(const ExploreWork& work, SeedBlock block) {
    std::vector<std::uint64_t> events(block.count, 0);
    std::uint64_t offset = 0;
    for (std::size_t d = 0; d < work.exploration.designs.size(); ++d) {
        const DesignExploration& explored = work.exploration.designs[d];
        const std::uint64_t run = events_per_run(explored);
        // An empty overlap is {0, 0}, whose index would lie before the block's start.
        const SeedBlock placements = overlap(block, offset, work.to_run[d].size());
        if (placements.count > 0)
            std::fill_n(events.begin() + static_cast<std::ptrdiff_t>(offset + placements.first - block.first),
                        placements.count, run);
        offset += work.to_run[d].size();
        for (std::size_t f = 0; f < work.classes[d].size(); ++f) {
            const auto& classes = work.classes[d][f];
            const SeedBlock these = overlap(block, offset, classes.size());
            for (std::uint64_t k = 0; k < these.count; ++k) {
                const std::uint64_t runs = class_runs_foreseen(explored, f, classes[these.first + k]);
                events[offset + these.first + k - block.first] = runs > std::numeric_limits<std::uint64_t>::max() / run
                                                                     ? std::numeric_limits<std::uint64_t>::max()
                                                                     : runs * run;
            }
            offset += classes.size();
        }
    }
    return events;
}

// Refuses, before any of them runs, a shard whose runs would process more events than
// max_explore_events: explore's work grows with the square of a file's job (more events
// to strike at, each run longer).
void refuse_past_event_budget(const ExploreWork& work, const ExploreOptions& options, SeedBlock block,
                              std::uint64_t placements, const std::string& command) {
    const std::vector<std::uint64_t> events = unit_events(work, block);
    std::uint64_t total = 0;
    for (const std::uint64_t each : events)
        if (__builtin_add_overflow(total, each, &total)) total = std::numeric_limits<std::uint64_t>::max();
    if (total <= options.event_budget) return;
    std::uint64_t longest_run = 0;
    for (const auto& design : work.exploration.designs) longest_run = std::max(longest_run, events_per_run(design));
    const std::string what = fmt::format(
        "exploring {} takes {} placement runs and {} start classes of runs of up to {} events each (the runs "
        "without faults), about {} events in all, more than the {} one explore processes at once",
        options.shards > 1 ? "this shard" : "the file", grouped(placements), grouped(block.count - placements),
        grouped(longest_run), grouped(total), grouped(options.event_budget));
    throw refusal_with_shards(what, shards_that_pass(events, options.event_budget), options, command,
                              "explore fewer targets, sizes or designs (--design), or a shorter job");
}

// Runs the units of `block`, into `outcomes` (indexed from the block's first).
void run_units(ExploreWork& work, const Scenario& scenario, const ExploreOptions& options, SeedBlock block,
               std::vector<UnitOutcome>& outcomes) {
    const std::uint64_t seed = work.exploration.seed;
    ExploreSettings settings{options.design, seed, options.event_limit, options.prune};
    const std::string command = explore_command_line(scenario.file, settings, 1, 1);
    std::uint64_t placements = 0;
    std::uint64_t start_classes = 0;
    {
        std::uint64_t offset = 0;
        for (std::size_t d = 0; d < work.designs.size(); ++d) {
            placements += overlap(block, offset, work.to_run[d].size()).count;
            offset += work.to_run[d].size();
            for (const auto& classes : work.classes[d]) {
                start_classes += overlap(block, offset, classes.size()).count;
                offset += classes.size();
            }
        }
    }
    options.planned(placements, start_classes);
    refuse_past_event_budget(work, options, block, placements, command);

    std::uint64_t offset = 0;
    std::uint64_t finished = 0;
    std::uint64_t region_runs_planned = 0;  // over every design and family, against max_region_runs
    std::atomic<std::uint64_t> region_runs_made{0};
    for (std::size_t d = 0; d < work.exploration.designs.size(); ++d) {
        DesignExploration& explored = work.exploration.designs[d];
        const Design& design = *work.designs[d];
        const std::vector<std::size_t>& runs = work.to_run[d];
        const SeedBlock mine = overlap(block, offset, runs.size());
        run_in_parallel(
            mine.count, options.threads,
            [&](std::uint64_t r, unsigned) {
                const PlacementOutcome& placement = explored.placements[runs[mine.first + r]];
                WorldSpec world = without_faults(design);
                for (const auto& choice : placement.faults) world.faults.push_back(to_fault(explored, choice));
                // Messages are still recorded (a strike point may be a message's arrival), and
                // checked as they are; only the outcome is kept, not the trace.
                const CheckedRun run = [&] {
                    try {
                        return run_and_check(world, seed,
                                             RunOptions{.event_limit = options.event_limit, .keep_trace = false});
                    } catch (const RunawayRun& runaway) {
                        throw RunawayRun(fmt::format("design \"{}\", with faults {}: {}", design.name,
                                                     placement_faults(explored, placement).dump(), runaway.what()));
                    }
                }();
                outcomes[offset + mine.first + r - block.first].violations =
                    judge_design(design, run.metrics).violations;
            },
            [&](std::uint64_t done) { options.progress(finished + done, placements); });
        finished += mine.count;
        offset += runs.size();
        const WorldSpec quiet = without_faults(design);
        const RegionSearch search{&design,
                                  &quiet,
                                  seed,
                                  options.event_limit,
                                  options.threads,
                                  options.progress,
                                  command,
                                  options.shards,
                                  &region_runs_planned,
                                  &region_runs_made,
                                  options.region_run_limit};
        for (std::size_t f = 0; f < explored.families.size(); ++f) {
            const auto& classes = work.classes[d][f];
            const SeedBlock these = overlap(block, offset, classes.size());
            offset += classes.size();
            if (these.count == 0) continue;
            const std::vector<StartClass> subset(
                classes.begin() + static_cast<std::ptrdiff_t>(these.first),
                classes.begin() + static_cast<std::ptrdiff_t>(these.first + these.count));
            auto found = [&] {
                try {
                    return explored.families[f].size_range ? search_size_classes(explored, f, subset, search)
                                                           : search_start_classes(explored, f, subset, search);
                } catch (const RegionRunsPastLimit& past) {
                    throw refusal_past_limit(past, work, options, block, command);
                }
            }();
            std::move(
                found.begin(), found.end(),
                outcomes.begin() + static_cast<std::ptrdiff_t>(offset - classes.size() + these.first - block.first));
        }
    }
}

// Given outcomes (from shard files) are what the plan's units return, before anything
// assembles them: a placement's, a count; a start class's over a range of lengths, its
// segments of ends from the class's first end to one past its last, each ending where the
// next begins; over a range of sizes, its sizes rising. An edited shard is refused here,
// not by the regions' assertions.
void check_given(const ExploreWork& work, const std::vector<UnitOutcome>& outcomes) {
    std::uint64_t unit = 0;
    const auto refuse = [&](const DesignExploration& design, const std::string& why) {
        throw ExploreError(
            fmt::format("the shards' unit {} (of design {}) {}; rerun its shard", unit, design.name, why));
    };
    for (std::size_t d = 0; d < work.exploration.designs.size(); ++d) {
        const DesignExploration& design = work.exploration.designs[d];
        std::uint64_t runs = 0;  // the design's region runs, added up as assemble() will
        for (std::size_t r = 0; r < work.to_run[d].size(); ++r, ++unit) {
            const UnitOutcome& given = outcomes[unit];
            if (!given.segments.empty() || !given.sizes.empty() || given.runs != 0)
                refuse(design, "is a placement's, a count of violations, not a start class's");
        }
        for (std::size_t f = 0; f < design.families.size(); ++f)
            for (const StartClass& starts : work.classes[d][f]) {
                const UnitOutcome& given = outcomes[unit];
                const FaultFamilyPlan& family = design.families[f];
                if (__builtin_add_overflow(runs, given.runs, &runs))
                    refuse(design, "brings the runs of its start classes past 2^64 - 1");
                if (family.size_range) {
                    if (given.sizes.empty() || !given.segments.empty())
                        refuse(design, "is a start class of sizes: expected its sizes");
                    for (std::size_t s = 0; s < given.sizes.size(); ++s)
                        if (given.sizes[s].from > given.sizes[s].to ||
                            (s > 0 && given.sizes[s - 1].to >= given.sizes[s].from))
                            refuse(design, "holds sizes that do not rise");
                } else {
                    const auto& ends = given.segments;
                    const bool whole = !ends.empty() && ends.front().from == starts.first + family.lengths->shortest &&
                                       ends.back().to == starts.last + family.lengths->longest + Duration{1};
                    bool joined = true;
                    for (std::size_t s = 0; s < ends.size(); ++s)
                        joined = joined && ends[s].from < ends[s].to && (s == 0 || ends[s - 1].to == ends[s].from);
                    if (!given.sizes.empty() || !whole || !joined)
                        refuse(design,
                               fmt::format("holds ends that are not those of its start class, {} to {} on {}: from "
                                           "its first end to one past its last, each segment ending where the next "
                                           "begins",
                                           format_seconds(starts.first), format_seconds(starts.last), starts.node));
                }
                ++unit;
            }
    }
}

// The outcomes of every unit into the exploration: each placement's violations (shared
// with its equivalents), the windows, the regions and the expectations.
void assemble(ExploreWork& work, const ExploreSpec& spec, const std::vector<UnitOutcome>& outcomes) {
    std::uint64_t offset = 0;
    for (std::size_t d = 0; d < work.exploration.designs.size(); ++d) {
        DesignExploration& explored = work.exploration.designs[d];
        const std::vector<std::size_t>& runs = work.to_run[d];
        for (std::size_t r = 0; r < runs.size(); ++r)
            explored.placements[runs[r]].violations = outcomes[offset + r].violations;
        offset += runs.size();
        for (std::size_t k = 0; k < explored.placements.size(); ++k)
            explored.placements[k].violations = explored.placements[work.same_runs[d][k]].violations;
        if (spec.depth == 1) explored.windows = find_windows(explored);
        for (std::size_t f = 0; f < explored.families.size(); ++f) {
            const auto& classes = work.classes[d][f];
            if (!explored.families[f].ranged()) continue;
            const std::vector<UnitOutcome> these(
                outcomes.begin() + static_cast<std::ptrdiff_t>(offset),
                outcomes.begin() + static_cast<std::ptrdiff_t>(offset + classes.size()));
            offset += classes.size();
            for (const auto& one : these) explored.region_runs += one.runs;
            auto regions = explored.families[f].size_range ? size_regions(explored, f, classes, these)
                                                           : join_regions(explored, f, classes, these);
            explored.regions.insert(explored.regions.end(), regions.begin(), regions.end());
        }
        const auto expected = spec.expect.find(explored.name);
        if (expected != spec.expect.end())
            explored.expectations = judge_exploration(explored, spec.depth, expected->second);
    }
}

}  // namespace

ExploreUnits run_explore_shard(const Scenario& scenario, const ExploreOptions& options) {
    assert(scenario.explore.has_value());
    ExploreWork work = plan_exploration(scenario, options);
    const SeedBlock block = shard_block(SeedBlock{0, work.total}, options.shard, options.shards);
    std::vector<UnitOutcome> outcomes(block.count);
    run_units(work, scenario, options, block, outcomes);
    return ExploreUnits{std::move(work.exploration), work.total, block.first, std::move(outcomes)};
}

std::vector<UnitOutcome> rerun_units(const Scenario& scenario, const ExploreOptions& options,
                                     const std::vector<std::uint64_t>& units) {
    assert(scenario.explore.has_value());
    ExploreWork work = plan_exploration(scenario, options);
    std::vector<UnitOutcome> outcomes;
    for (const std::uint64_t unit : units) {
        if (unit >= work.total)
            throw ExploreError(fmt::format("unit {} is beyond the {} units of exploring the file", unit, work.total));
        std::vector<UnitOutcome> one(1);
        run_units(work, scenario, options, SeedBlock{unit, 1}, one);
        outcomes.push_back(std::move(one.front()));
    }
    return outcomes;
}

Exploration run_explore(const Scenario& scenario, const ExploreOptions& options) {
    assert(scenario.explore.has_value());
    ExploreWork work = plan_exploration(scenario, options);
    if (options.given) {
        if (options.given->size() != work.total)
            throw ExploreError(
                fmt::format("the shards hold {} units of work, but exploring the file takes {}; "
                            "rerun every shard with this file and this locksim",
                            options.given->size(), work.total));
        check_given(work, *options.given);
        assemble(work, *scenario.explore, *options.given);
        return std::move(work.exploration);
    }
    std::vector<UnitOutcome> outcomes(work.total);
    run_units(work, scenario, options, SeedBlock{0, work.total}, outcomes);
    assemble(work, *scenario.explore, outcomes);
    return std::move(work.exploration);
}

}  // namespace locksim
