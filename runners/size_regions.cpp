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

    // The segments of sizes over the whole range, bisecting where neighbours disagree. A
    // segment never spans 0: a step of 0 is no fault, and neither side says what the other does.
    std::vector<SizeSegment> search() {
        std::vector<std::uint32_t> outcome;
        for (const Duration size : tries_) outcome.push_back(violations_at(size));
        std::vector<SizeSegment> segments{SizeSegment{tries_.front(), tries_.front(), outcome.front()}};
        for (std::size_t k = 1; k < tries_.size(); ++k) {
            if (tries_[k - 1].ns < 0 && tries_[k].ns > 0) {
                segments.push_back(SizeSegment{tries_[k], tries_[k], outcome[k]});
                continue;
            }
            Duration known = tries_[k - 1];
            while (segments.back().violations != outcome[k]) {
                const auto [before, change, violations] = first_change(known, segments.back().violations, tries_[k]);
                segments.back().to = before;
                segments.push_back(SizeSegment{change, change, violations});
                known = change;
            }
            segments.back().to = tries_[k];
        }
        return segments;
    }

    std::uint64_t runs() const { return runs_; }

private:
    // Between `known` (whose outcome is `at_known`) and `differs` (whose outcome is not),
    // both of one sign: the last tried size with `at_known` and the first after it with
    // another outcome, no whole millisecond apart, and that outcome.
    std::tuple<Duration, Duration, std::uint32_t> first_change(Duration known, std::uint32_t at_known,
                                                               Duration differs) {
        Duration low = known;
        Duration high = differs;
        std::uint32_t at_high = violations_at(high);
        for (;;) {
            Duration middle = floor_ms(low + (high - low) / 2);
            if (middle <= low) middle += one_ms;
            if (middle >= high) break;
            assert(middle.ns != 0);
            const std::uint32_t at_middle = violations_at(middle);
            if (at_middle == at_known) {
                low = middle;
            } else {
                high = middle;
                at_high = at_middle;
            }
        }
        return {low, high, at_high};
    }

    std::uint32_t violations_at(Duration size) {
        const auto known = seen_.find(size);
        if (known != seen_.end()) return known->second;
        const std::uint32_t violations = judge_design(*search_.design, run(size).metrics).violations;
        seen_.emplace(size, violations);
        return violations;
    }

    CheckedRun run(Duration size) {
        ++runs_;
        return run_one_fault(design_, family_, search_, starts_.node, starts_.first, size, false);
    }

    const DesignExploration& design_;
    const FaultFamilyPlan& family_;
    const RegionSearch& search_;
    const StartClass& starts_;
    std::vector<Duration> tries_;
    std::map<Duration, std::uint32_t> seen_;
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
