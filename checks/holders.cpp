// "Never two holders in true time": each holder's belief is an interval of true time,
// from belief.acquired to belief.ended (or the end of the run). Any two intervals of
// different nodes on the same key that intersect are an overlap. A crash ends every belief
// of the crashed node.
#include <algorithm>
#include <map>

#include "checks/checkers.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

using Belief = OverlapFinder::Belief;

}  // namespace

void OverlapFinder::see(const Trace&, const TraceEvent& event, RunMetrics&) {
    if (event.kind == trace_kind::belief_acquired) {
        const std::string key(event.text("key"));
        open_[{event.node.index, key}] = Belief{key, event.node, event.at, event.at};
    } else if (event.kind == trace_kind::belief_ended) {
        auto found = open_.find({event.node.index, std::string(event.text("key"))});
        if (found == open_.end()) return;
        found->second.to = event.at;
        closed_.push_back(found->second);
        open_.erase(found);
    } else if (event.kind == trace_kind::node_crashed) {
        // A process that is gone believes nothing.
        for (auto it = open_.begin(); it != open_.end();) {
            if (it->first.first != event.node.index) {
                ++it;
                continue;
            }
            it->second.to = event.at;
            closed_.push_back(it->second);
            it = open_.erase(it);
        }
    }
}

namespace {

// True time covered by at least two beliefs on the same key.
Duration time_with_two_believers(const std::vector<Belief>& beliefs) {
    std::map<std::string, std::vector<std::pair<Instant, int>>> edges;
    for (const auto& b : beliefs) {
        edges[b.key].push_back({b.from, +1});
        edges[b.key].push_back({b.to, -1});
    }
    Duration total{};
    for (auto& [_, points] : edges) {
        std::sort(points.begin(), points.end());  // at equal times, ends (-1) before starts
        int believers = 0;
        Instant since;
        for (const auto& [at, change] : points) {
            if (believers >= 2) total += at - since;
            believers += change;
            since = at;
        }
    }
    return total;
}

}  // namespace

void OverlapFinder::finish(const Trace&, Instant run_end, RunMetrics& metrics) {
    std::vector<Belief> beliefs = std::move(closed_);
    for (auto& [_, belief] : open_) {
        belief.to = run_end;
        beliefs.push_back(belief);
    }
    std::sort(beliefs.begin(), beliefs.end(), [](const Belief& a, const Belief& b) {
        return a.from != b.from ? a.from < b.from : a.holder < b.holder;
    });
    for (std::size_t i = 0; i < beliefs.size(); ++i) {
        for (std::size_t j = i + 1; j < beliefs.size(); ++j) {
            const Belief& a = beliefs[i];
            const Belief& b = beliefs[j];
            if (a.key != b.key || a.holder == b.holder) continue;
            const Instant from = std::max(a.from, b.from);
            const Instant to = std::min(a.to, b.to);
            if (from < to) {
                metrics.overlaps.push_back(HolderOverlap{a.key, a.holder, b.holder, from, to});
                metrics.add(Metric::overlapping_holders);
            }
        }
    }
    metrics.overlap_time = time_with_two_believers(beliefs);
}

}  // namespace locksim
