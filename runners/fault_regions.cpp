#include "runners/fault_regions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <limits>
#include <map>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>

#include "models/faults/fault.hpp"
#include "models/faults/fault_roles.hpp"
#include "reports/text_style.hpp"
#include "runners/explore_runner.hpp"
#include "runners/parallel_runs.hpp"
#include "runners/run_branches.hpp"
#include "runners/scenario_runner.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// The start classes of `node`: one before the first event that can tell two starts apart
// (when there is room), then one after each instant with such events, the last reaching
// the end of the run without faults. A fault on one node is told apart by that node's
// events only. A fault on links (`links_to`: the nodes on the other side; empty: every
// other node) is told apart by the events of the nodes at both ends: a message sent before
// the cut gets through, one sent after it is lost, and each send or arrival is an event of
// a node at one end. A fault that resets the requests waiting on its target is told apart
// by the sending of each request to it too.
std::vector<StartClass> start_classes(const Trace& baseline, Instant baseline_end, const std::string& node,
                                      const ExploreShape& shape, const std::vector<std::string>& links_to) {
    const bool strikes_links = shape.strikes_links;
    // A role (the lock holder) may be played by any node, and who plays it changes at an
    // event: every node's events tell its starts apart.
    const bool by_role = role_of(node) != nullptr;
    std::vector<bool> telling(baseline.node_names().size(), by_role || (strikes_links && links_to.empty()));
    if (!by_role) {
        const std::optional<NodeId> id = baseline.find_node(node);
        assert(id.has_value());
        telling[id->index] = true;
    }
    if (strikes_links)
        for (const auto& other : links_to) {
            const std::optional<NodeId> other_id = baseline.find_node(other);
            assert(other_id.has_value());
            telling[other_id->index] = true;
        }
    const std::optional<NodeId> target = by_role ? std::nullopt : baseline.find_node(node);
    const auto tells = [&](const TraceEvent& event) {
        if (telling[event.node.index]) return true;
        return shape.resets_requests && target && event.kind == trace_kind::message_sent &&
               event.node_ref("to") == *target;
    };
    std::vector<Instant> firsts{Instant{}};
    for (const auto& event : baseline.events())
        if (event.node != no_node && event.at + Duration{1} > firsts.back() && tells(event))
            firsts.push_back(event.at + Duration{1});
    std::vector<StartClass> classes;
    for (std::size_t k = 0; k < firsts.size(); ++k) {
        const Instant last = k + 1 < firsts.size() ? firsts[k + 1] - Duration{1} : std::max(baseline_end, firsts[k]);
        if (firsts[k] <= last) classes.push_back(StartClass{node, firsts[k], last});
    }
    return classes;
}

class StartClassSearch {
public:
    StartClassSearch(const DesignExploration& design, const FaultFamilyPlan& family, const RegionSearch& search,
                     const StartClass& starts)
        : design_(design), family_(family), search_(search), starts_(starts) {}

    // The held run, and the ends to try: the first of the range, and one just after each
    // instant of the held run's events inside it; each is the first of a gap whose last end
    // is tried too.
    void plan() {
        const LengthSpan span = *family_.lengths;
        ends_from_ = starts_.first + span.shortest;
        ends_to_ = starts_.last + span.longest;
        const CheckedRun held = run(ends_to_);
        seen_.emplace(ends_to_, Probe{judge_design(*search_.design, held.metrics).violations, shape_of(held.trace)});
        tries_.push_back(ends_from_);
        for (const auto& event : held.trace.events()) {
            const Instant after = event.at + Duration{1};
            if (event.at < ends_from_ || after >= ends_to_ || after <= tries_.back()) continue;
            tries_.push_back(after);
        }
    }
    // Both ends of each gap, and the held run's end.
    std::uint64_t planned() const { return 2 * tries_.size(); }

    // The segments of ends over the whole range. Runs of ends that took the same branches
    // are one interval (runners/run_branches.hpp): each gap is swept from its first end,
    // trying first the ends where the branches are predicted to change, and bisecting to the
    // nanosecond wherever they change before a prediction, so two changes of outcome between
    // two tried ends that agree are found too. Neighbouring intervals with the same
    // violations make one segment.
    std::vector<EndSegment> search() {
        tries_.push_back(ends_to_);  // the held run's end, known since plan()
        std::vector<EndSegment> segments;
        const auto begin = [&segments](Instant at, std::uint32_t violations) {
            if (!segments.empty() && segments.back().violations == violations) return;
            if (!segments.empty()) segments.back().to = at;
            segments.push_back(EndSegment{at, at, violations});
        };
        for (std::size_t k = 0; k < tries_.size(); ++k) {
            const Instant first = tries_[k];
            const Instant last = k + 1 < tries_.size() ? tries_[k + 1] - Duration{1} : tries_[k];
            begin(first, probe(first).violations);
            sweep_gap(first, last, begin);
            // No later gap asks for these, but the next one's first end reads its events
            // against this gap's last.
            seen_.erase(seen_.begin(), seen_.lower_bound(last));
        }
        segments.back().to = ends_to_ + Duration{1};
        return segments;
    }

    std::uint64_t runs() const { return runs_; }

private:
    struct Probe {
        std::uint32_t violations = 0;
        RunShape shape;
    };

    // From `known`, the first end of a set of branches, to `last`: each later end where the
    // branches change begins a new set (`begin`).
    template <class Begin>
    void sweep_gap(Instant known, Instant last, const Begin& begin) {
        // Every end from `known` to `reached` took the branches of `known`.
        Instant reached = known;
        std::optional<std::vector<Follows>> follows;  // read when first needed
        while (!same_branches(probe(known).shape, known, probe(last).shape, last)) {
            if (!follows) follows = followed(known, reached);
            const std::optional<Instant> predicted = next_meeting(probe(known).shape, known, *follows, reached);
            Instant change;
            if (predicted && *predicted <= last &&
                (*predicted - Duration{1} == reached ||
                 same_branches(probe(known).shape, known, probe(*predicted - Duration{1}).shape,
                               *predicted - Duration{1}))) {
                reached = *predicted - Duration{1};
                if (same_branches(probe(known).shape, known, probe(*predicted).shape, *predicted)) {
                    reached = *predicted;
                    follows.reset();
                    continue;
                }
                change = *predicted;
            } else {
                change =
                    first_change(known, reached, predicted && *predicted <= last ? *predicted - Duration{1} : last);
            }
            begin(change, probe(change).violations);
            known = reached = change;
            follows.reset();
        }
    }

    // How each event of `known`'s run follows from the end: read against a later end of the
    // same branches when one ran, or else against the end just before, which took others.
    std::vector<Follows> followed(Instant known, Instant reached) {
        const Probe& run = probe(known);
        if (reached != known) return how_events_follow(run.shape, known, probe(reached).shape, reached);
        const auto before = seen_.find(known - Duration{1});
        if (before != seen_.end()) return how_events_follow(run.shape, known, before->second.shape, before->first);
        const Instant after = known + Duration{1};
        return how_events_follow(run.shape, known, probe(after).shape, after);
    }

    // The first end after `low` (which took `known`'s branches), up to `differs` (which took
    // others), whose run takes other branches than `known`'s. The ends that take one set of
    // branches are an interval, so those of `known` end before `differs`.
    Instant first_change(Instant known, Instant low, Instant differs) {
        Instant high = differs;
        while (high - low > Duration{1}) {
            const Instant middle = low + Duration{(high - low).ns / 2};
            if (same_branches(probe(known).shape, known, probe(middle).shape, middle))
                low = middle;
            else
                high = middle;
        }
        return high;
    }

    const Probe& probe(Instant end) {
        const auto known = seen_.find(end);
        if (known != seen_.end()) return known->second;
        const CheckedRun checked = run(end);
        return seen_
            .emplace(end, Probe{judge_design(*search_.design, checked.metrics).violations, shape_of(checked.trace)})
            .first->second;
    }

    CheckedRun run(Instant end) {
        ++runs_;
        return run_one_fault(design_, family_, search_, starts_.node, starts_.first, end - starts_.first, true);
    }

    const DesignExploration& design_;
    const FaultFamilyPlan& family_;
    const RegionSearch& search_;
    const StartClass& starts_;
    Instant ends_from_;
    Instant ends_to_;
    std::vector<Instant> tries_;
    std::map<Instant, Probe> seen_;
    std::uint64_t runs_ = 0;
};

// The rectangles of violating ends of each start class, joined where neighbouring classes
// of one node break the design over the same ends in the same ways. A segment that runs to
// the class's last end (its latest start plus the longest length) joins one that runs to
// its own class's last end: no end beyond either is a length of the range, so the joined
// rectangle claims nothing the two did not.
std::vector<FaultRegion> join(std::size_t family, const LengthSpan& span, const std::vector<StartClass>& classes,
                              const std::vector<UnitOutcome>& outcomes) {
    std::vector<FaultRegion> regions;
    constexpr Instant to_the_last_end{std::numeric_limits<std::int64_t>::max()};
    // Per node: the open region of each (end range, violations) while its classes run on.
    std::map<std::tuple<Instant, Instant, std::uint32_t>, std::size_t> open;
    for (std::size_t k = 0; k < classes.size(); ++k) {
        if (k > 0 && classes[k].node != classes[k - 1].node) open.clear();
        const Instant last_end = classes[k].last + span.longest + Duration{1};
        std::map<std::tuple<Instant, Instant, std::uint32_t>, std::size_t> still_open;
        for (const auto& segment : outcomes[k].segments) {
            if (segment.violations == 0) continue;
            const auto key = std::make_tuple(segment.from, segment.to == last_end ? to_the_last_end : segment.to,
                                             segment.violations);
            const auto found = open.find(key);
            if (found != open.end()) {
                regions[found->second].start.to = classes[k].last + Duration{1};
                regions[found->second].end.to = std::max(regions[found->second].end.to, segment.to);
                still_open.emplace(key, found->second);
                continue;
            }
            // An example the region holds: it ends at the first of its ends (never before a
            // start's shortest length: the segment begins at the first start's), and starts
            // as early as the longest length lets.
            const Instant end = segment.from;
            const Instant start = std::max(classes[k].first, end - span.longest);
            assert(start <= classes[k].last && end < segment.to);
            assert(end - start >= span.shortest && end - start <= span.longest);
            regions.push_back(FaultRegion{family, classes[k].node, InstantRange{start, classes[k].last + Duration{1}},
                                          InstantRange{segment.from, segment.to}, segment.violations, start,
                                          end - start});
            still_open.emplace(key, regions.size() - 1);
        }
        open = std::move(still_open);
    }
    std::stable_sort(regions.begin(), regions.end(), [](const FaultRegion& a, const FaultRegion& b) {
        return std::tie(a.node, a.start.from, a.end.from) < std::tie(b.node, b.start.from, b.end.from);
    });
    return regions;
}

}  // namespace

std::vector<StartClass> family_start_classes(const DesignExploration& design, std::size_t family) {
    const FaultFamilyPlan& plan = design.families[family];
    assert(plan.ranged());
    std::vector<StartClass> classes;
    for (const auto& node : plan.targets) {
        auto of_node =
            start_classes(design.baseline, design.baseline_end, node, *explore_shape(plan.kind), plan.apart_from);
        classes.insert(classes.end(), of_node.begin(), of_node.end());
    }
    return classes;
}

CheckedRun run_one_fault(const DesignExploration& design, const FaultFamilyPlan& plan, const RegionSearch& search,
                         const std::string& node, Instant at, Duration size, bool keep_trace) {
    // What was planned is a floor: each change of branches costs runs of its own. A limit
    // holds for the runs made too, so an exploration ends with the reason rather than run
    // on for hours.
    const std::uint64_t most_made = runs_made_per_planned * search.run_limit;
    if (search.runs_made && ++*search.runs_made > most_made)
        throw ExploreError(fmt::format(
            "design \"{}\": exploring {} exactly has made {} runs and is not done, more than {} times the {} one "
            "explore may "
            "plan (the runs planned are a floor: each change of branches between two ends costs more, "
            "docs/explore.md); shard it into more shards than the planned runs ask for: {} --shard 1/N and so on to "
            "N/N, then locksim merge the shards; or narrow the range or name fewer targets",
            design.name, plan.kind, grouped(most_made + 1), runs_made_per_planned, grouped(search.run_limit),
            search.command));
    WorldSpec world = *search.quiet;
    world.faults.push_back(placed_fault(plan.kind, node, at, size, plan.details()));
    try {
        return run_and_check(world, search.seed,
                             RunOptions{.event_limit = search.event_limit, .keep_trace = keep_trace});
    } catch (const RunawayRun& runaway) {
        throw RunawayRun(fmt::format("design \"{}\", {} on {} at {}{}{}: {}", design.name, plan.kind, node,
                                     format_duration(at - Instant{}), explore_shape(plan.kind)->size_joint,
                                     format_duration(size), runaway.what()));
    }
}

void refuse_past_limit(const DesignExploration& design, const FaultFamilyPlan& plan, std::uint64_t planned,
                       std::size_t classes, const RegionSearch& search) {
    // The limit holds for the whole exploration (or shard), not for each family apart: a
    // thousand families of a million runs each are a billion runs.
    const std::uint64_t before = search.planned_before ? *search.planned_before : 0;
    if (before + planned > search.run_limit)
        throw RegionRunsPastLimit{design.name, plan.kind, planned, classes, before};
    if (search.planned_before) *search.planned_before += planned;
}

std::uint64_t start_class_runs_planned(const DesignExploration& design, std::size_t family, const StartClass& starts,
                                       const RegionSearch& search) {
    StartClassSearch one(design, design.families[family], search, starts);
    one.plan();
    return one.planned() + 1;
}

std::vector<UnitOutcome> search_start_classes(const DesignExploration& design, std::size_t family,
                                              const std::vector<StartClass>& classes, const RegionSearch& search) {
    const FaultFamilyPlan& plan = design.families[family];
    std::vector<StartClassSearch> searches;
    searches.reserve(classes.size());
    for (const auto& starts : classes) searches.emplace_back(design, plan, search, starts);

    // The held runs first: they say how many runs the rest will take, before it starts.
    run_in_parallel(
        searches.size(), search.threads, [&](std::uint64_t k, unsigned) { searches[k].plan(); }, [](std::uint64_t) {});
    std::uint64_t planned = 0;
    for (const auto& one : searches) planned += one.planned() + 1;
    refuse_past_limit(design, plan, planned, classes.size(), search);
    std::vector<UnitOutcome> outcomes(searches.size());
    run_in_parallel(
        searches.size(), search.threads,
        [&](std::uint64_t k, unsigned) {
            outcomes[k].segments = searches[k].search();
            outcomes[k].runs = searches[k].runs();
        },
        [&](std::uint64_t done) { search.progress(done, searches.size()); });
    return outcomes;
}

std::vector<FaultRegion> join_regions(const DesignExploration& design, std::size_t family,
                                      const std::vector<StartClass>& classes,
                                      const std::vector<UnitOutcome>& outcomes) {
    return join(family, *design.families[family].lengths, classes, outcomes);
}

}  // namespace locksim
