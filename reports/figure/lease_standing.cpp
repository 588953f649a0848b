#include "reports/figure/lease_standing.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace locksim {
namespace {

bool in_force(const FigureSpan& span, Instant at) {
    return span.from <= at && (span.open || at < span.to);
}

// The most store nodes that held the lock, for anyone, at one moment: 1 for one Redis
// (or a primary and the replica promoted after it crashed), 5 for Redlock's five.
std::size_t store_node_count(const SequenceFigure& figure) {
    std::size_t most = 1;
    for (const auto& start : figure.spans) {
        if (!shared_grant(start)) continue;
        std::set<std::size_t> lanes;
        for (const auto& span : figure.spans)
            if (shared_grant(span) && in_force(span, start.from)) lanes.insert(span.lane);
        most = std::max(most, lanes.size());
    }
    return most;
}

}  // namespace

bool shared_grant(const FigureSpan& span) {
    return span.kind == FigureSpan::Kind::granted && span.lane != span.holder;
}

std::vector<std::size_t> nodes_granting(const SequenceFigure& figure, std::size_t holder, Instant at) {
    std::set<std::size_t> lanes;
    for (const auto& span : figure.spans)
        if (shared_grant(span) && span.holder == holder && in_force(span, at)) lanes.insert(span.lane);
    return {lanes.begin(), lanes.end()};
}

bool holds_majority(const SequenceFigure& figure, std::size_t holder, Instant at, std::size_t store_nodes) {
    return nodes_granting(figure, holder, at).size() >= store_nodes / 2 + 1;
}

std::string joined_names(const std::vector<std::string>& names) {
    if (names.empty()) return "";
    if (names.size() == 1) return names.front();
    std::string text;
    for (std::size_t i = 0; i + 1 < names.size(); ++i) text += (i > 0 ? ", " : "") + names[i];
    return text + " and " + names.back();
}

std::optional<std::size_t> lane_named(const SequenceFigure& figure, const std::string& name) {
    const auto found = std::find(figure.lanes.begin(), figure.lanes.end(), name);
    if (found == figure.lanes.end()) return std::nullopt;
    return static_cast<std::size_t>(found - figure.lanes.begin());
}

LockHistory::LockHistory(const SequenceFigure& figure)
    : figure_(figure),
      any_grant_(std::any_of(figure.spans.begin(), figure.spans.end(),
                             [](const FigureSpan& span) { return span.kind == FigureSpan::Kind::granted; })),
      store_nodes_(store_node_count(figure)) {}

LeaseStanding LockHistory::standing(std::size_t holder, Instant at) const {
    const SequenceFigure& figure = figure_;
    LeaseStanding standing;
    if (!any_grant_) {
        standing.kind = LeaseStanding::Kind::no_lock;
        return standing;
    }
    for (const auto& span : figure.spans) {
        if (span.kind == FigureSpan::Kind::granted && span.lane == holder && span.holder == holder && span.from <= at) {
            standing.kind = LeaseStanding::Kind::own_memory;
            standing.since = span.from;
            standing.grants = {&span};
            return standing;
        }
    }
    standing.store_nodes = store_nodes_;
    if (holds_majority(figure, holder, at, standing.store_nodes)) {
        standing.kind = LeaseStanding::Kind::held;
        for (const auto& span : figure.spans) {
            if (!shared_grant(span) || span.holder != holder || !in_force(span, at)) continue;
            standing.grants.push_back(&span);
            standing.since = std::max(standing.since, span.from);
        }
        standing.nodes_held = nodes_granting(figure, holder, at).size();
        return standing;
    }
    // The last time before `at` that the end of one of its grants took its hold away.
    std::vector<Instant> ends;
    for (const auto& span : figure.spans)
        if (shared_grant(span) && span.holder == holder && !span.open && span.to <= at) ends.push_back(span.to);
    std::sort(ends.begin(), ends.end(), std::greater<>());
    for (const Instant end : ends) {
        if (holds_majority(figure, holder, end, standing.store_nodes) ||
            !holds_majority(figure, holder, end - Duration{1}, standing.store_nodes))
            continue;
        standing.kind = LeaseStanding::Kind::lost;
        standing.since = end;
        standing.nodes_held = nodes_granting(figure, holder, end).size();
        for (const auto& span : figure.spans)
            if (shared_grant(span) && span.holder == holder && !span.open && span.to == end)
                standing.grants.push_back(&span);
        return standing;
    }
    return standing;
}

}  // namespace locksim
