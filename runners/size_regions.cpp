#include "runners/size_regions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "models/faults/fault.hpp"
#include "runners/explore_runner.hpp"
#include "runners/parallel_runs.hpp"
#include "runners/run_branches.hpp"
#include "runners/scenario_runner.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

constexpr Duration one_ms = milliseconds(1);

// `d` rounded down to a whole number of `unit`s.
Duration floor_to(Duration d, Duration unit) {
    return unit * (d.ns / unit.ns - (d.ns % unit.ns < 0 ? 1 : 0));
}

Duration floor_ms(Duration d) {
    return floor_to(d, one_ms);
}

class SizeClassSearch {
public:
    SizeClassSearch(const DesignExploration& design, const FaultFamilyPlan& family, const RegionSearch& search,
                    const StartClass& starts)
        : design_(design), family_(family), search_(search), starts_(starts) {}

    // The sizes to try (see runners/size_regions.hpp), in order, without 0.
    void plan() {
        const SizeSpan span = *family_.size_range;
        std::set<Duration> sizes;
        const auto add = [&](Duration size) {
            if (size.ns != 0 && span.from <= size && size <= span.to) sizes.insert(size);
        };
        add(span.from);
        add(span.to);
        add(-one_ms);
        add(one_ms);
        for (Duration second = floor_to(span.from, seconds(1)); second <= span.to; second += seconds(1)) add(second);
        const std::optional<NodeId> target = design_.baseline.find_node(starts_.node);
        assert(target.has_value());  // the reader refuses roles for a sized family
        for (const auto& event : design_.baseline.events()) {
            if (event.node != *target || event.at < starts_.first) continue;
            const Duration d = event.at - starts_.first;
            if (d > span.to && -d < span.from) break;
            for (const Duration near : {d, d + one_ms})
                for (const Duration whole : {floor_ms(near), floor_ms(near) + one_ms}) {
                    add(whole);
                    add(-whole);
                }
        }
        tries_.assign(sizes.begin(), sizes.end());
    }
    std::uint64_t planned() const { return tries_.size(); }

    // The segments of sizes over the whole range. Sizes whose runs took the same branches
    // (the same shape, runners/run_branches.hpp, each instant moved by any amount: along one
    // set of branches every instant is an affine function of the size) are one interval, so
    // wherever two neighbouring tried sizes took different branches, whole milliseconds
    // between them are bisected for each change, and a change that breaks the design in
    // another way begins a segment. A segment never spans 0: a step of 0 is no fault, and
    // neither side says what the other does.
    std::vector<SizeSegment> search() {
        std::vector<SizeSegment> segments{
            SizeSegment{tries_.front(), tries_.front(), probe(tries_.front()).violations}};
        for (std::size_t k = 1; k < tries_.size(); ++k) {
            if (tries_[k - 1].ns < 0 && tries_[k].ns > 0) {
                segments.push_back(SizeSegment{tries_[k], tries_[k], probe(tries_[k]).violations});
                continue;
            }
            Duration known = tries_[k - 1];
            while (!same_order(probe(known).shape, probe(tries_[k]).shape)) {
                const auto [before, change] = first_change(known, tries_[k]);
                const std::uint32_t violations = probe(change).violations;
                if (violations != segments.back().violations) {
                    segments.back().to = before;
                    segments.push_back(SizeSegment{change, change, violations});
                }
                known = change;
            }
            segments.back().to = tries_[k];
            seen_.erase(seen_.begin(), seen_.find(tries_[k]));  // no later pair asks for these
        }
        return segments;
    }

    std::uint64_t runs() const { return runs_; }

private:
    struct Probe {
        std::uint32_t violations = 0;
        RunShape shape;
    };

    // Between `known` and `differs` (whose run took other branches), both of one sign: the
    // last tried size with `known`'s branches and the first after it with others, no whole
    // millisecond apart.
    std::pair<Duration, Duration> first_change(Duration known, Duration differs) {
        Duration low = known;
        Duration high = differs;
        for (;;) {
            Duration middle = floor_ms(low + (high - low) / 2);
            if (middle <= low) middle += one_ms;
            if (middle >= high) break;
            assert(middle.ns != 0);
            if (same_order(probe(known).shape, probe(middle).shape))
                low = middle;
            else
                high = middle;
        }
        return {low, high};
    }

    const Probe& probe(Duration size) {
        const auto known = seen_.find(size);
        if (known != seen_.end()) return known->second;
        const CheckedRun checked = run(size);
        return seen_
            .emplace(size, Probe{judge_design(*search_.design, checked.metrics).violations, shape_of(checked.trace)})
            .first->second;
    }

    CheckedRun run(Duration size) {
        ++runs_;
        return run_one_fault(design_, family_, search_, starts_.node, starts_.first, size, true);
    }

    const DesignExploration& design_;
    const FaultFamilyPlan& family_;
    const RegionSearch& search_;
    const StartClass& starts_;
    std::vector<Duration> tries_;
    std::map<Duration, Probe> seen_;
    std::uint64_t runs_ = 0;
};

}  // namespace

std::vector<UnitOutcome> search_size_classes(const DesignExploration& design, std::size_t family,
                                             const std::vector<StartClass>& classes, const RegionSearch& search) {
    const FaultFamilyPlan& plan = design.families[family];
    std::vector<SizeClassSearch> searches;
    searches.reserve(classes.size());
    for (const auto& starts : classes) searches.emplace_back(design, plan, search, starts);
    std::uint64_t planned = 0;
    for (auto& one : searches) {
        one.plan();
        planned += one.planned();
    }
    refuse_past_limit(design, plan, planned, classes.size(), search);
    std::vector<UnitOutcome> outcomes(searches.size());
    run_in_parallel(
        searches.size(), search.threads,
        [&](std::uint64_t k, unsigned) {
            outcomes[k].sizes = searches[k].search();
            outcomes[k].runs = searches[k].runs();
        },
        [&](std::uint64_t done) { search.progress(done, searches.size()); });
    return outcomes;
}

std::uint64_t size_class_runs_planned(const DesignExploration& design, std::size_t family, const StartClass& starts,
                                      const RegionSearch& search) {
    SizeClassSearch one(design, design.families[family], search, starts);
    one.plan();
    return one.planned();
}

std::vector<FaultRegion> size_regions(const DesignExploration& /*design*/, std::size_t family,
                                      const std::vector<StartClass>& classes,
                                      const std::vector<UnitOutcome>& outcomes) {
    std::vector<FaultRegion> regions;
    for (std::size_t k = 0; k < classes.size(); ++k)
        for (const auto& segment : outcomes[k].sizes) {
            if (segment.violations == 0) continue;
            // Only the instant tried: see runners/size_regions.hpp. The example is a size
            // that was run and broke the design this way.
            const Instant at = classes[k].first;
            regions.push_back(FaultRegion{family, classes[k].node, InstantRange{at, at + Duration{1}}, InstantRange{},
                                          segment.violations, at, segment.from, SizeSpan{segment.from, segment.to}});
        }
    std::stable_sort(regions.begin(), regions.end(), [](const FaultRegion& a, const FaultRegion& b) {
        return std::tie(a.node, a.start.from, a.size->from) < std::tie(b.node, b.start.from, b.size->from);
    });
    return regions;
}

}  // namespace locksim
