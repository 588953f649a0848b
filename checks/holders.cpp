// "Never two holders in true time": each holder's belief is an interval of true time,
// from belief.acquired to belief.ended (or the end of the run). Any two intervals of
// different nodes on the same key that intersect are an overlap. A crash ends every belief
// of the crashed node.
#include <algorithm>
#include <map>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

struct Belief {
    std::string key;
    NodeId holder;
    Instant from;
    Instant to;
};

std::vector<Belief> belief_intervals(const Trace& trace, Instant run_end) {
    std::vector<Belief> closed;
    std::map<std::pair<std::uint32_t, std::string>, Belief> open;
    for (const auto& event : trace.events()) {
        if (event.kind == trace_kind::belief_acquired) {
            open[{event.node.index, event.text("key")}] = Belief{event.text("key"), event.node, event.at, event.at};
        } else if (event.kind == trace_kind::belief_ended) {
            auto found = open.find({event.node.index, event.text("key")});
            if (found == open.end()) continue;
            found->second.to = event.at;
            closed.push_back(found->second);
            open.erase(found);
        } else if (event.kind == trace_kind::node_crashed) {
            // A process that is gone believes nothing.
            for (auto it = open.begin(); it != open.end();) {
                if (it->first.first != event.node.index) {
                    ++it;
                    continue;
                }
                it->second.to = event.at;
                closed.push_back(it->second);
                it = open.erase(it);
            }
        }
    }
    for (auto& [_, belief] : open) {
        belief.to = run_end;
        closed.push_back(belief);
    }
    std::sort(closed.begin(), closed.end(), [](const Belief& a, const Belief& b) {
        return a.from != b.from ? a.from < b.from : a.holder < b.holder;
    });
    return closed;
}

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

void find_overlapping_holders(const Trace& trace, Instant run_end, RunMetrics& metrics) {
    const auto beliefs = belief_intervals(trace, run_end);
    for (std::size_t i = 0; i < beliefs.size(); ++i) {
        for (std::size_t j = i + 1; j < beliefs.size(); ++j) {
            const Belief& a = beliefs[i];
            const Belief& b = beliefs[j];
            if (a.key != b.key || a.holder == b.holder) continue;
            const Instant from = std::max(a.from, b.from);
            const Instant to = std::min(a.to, b.to);
            if (from < to) metrics.overlaps.push_back(HolderOverlap{a.key, a.holder, b.holder, from, to});
        }
    }
    metrics.overlap_time = time_with_two_believers(beliefs);
}

}  // namespace locksim
