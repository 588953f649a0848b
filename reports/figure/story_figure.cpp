#include "reports/figure/story_figure.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace locksim {
namespace {

// A story keeps at most this many steps besides the flagged ones and their causes: in a
// long run, the background nearest to what was flagged.
constexpr std::size_t long_story = 60;

// The customers a checker flagged, for better or worse. A run with nothing flagged still
// shows one customer's work (the first), so that the reader sees what the lock is for.
std::set<std::int64_t> story_customers(const SequenceFigure& full) {
    std::set<std::int64_t> customers;
    for (const auto& step : full.steps)
        if (!step.explanation.empty() && step.customer) customers.insert(*step.customer);
    if (customers.empty())
        for (const auto& step : full.steps)
            if (step.customer) return {*step.customer};
    return customers;
}

bool between_stores(const FigureStep& step, const SequenceFigure& full) {
    return step.is_message() && !full.is_server[step.lane] && !full.is_server[*step.to_lane];
}

// Per lane, the messages delivered to it in trace order: (the delivering event, the step).
class Deliveries {
public:
    explicit Deliveries(const SequenceFigure& full) : full_(full), to_lane_(full.lanes.size()) {
        for (std::size_t i = 0; i < full.steps.size(); ++i)
            if (const auto& step = full.steps[i]; step.delivered_as && !step.retry)
                to_lane_[*step.to_lane].emplace_back(*step.delivered_as, i);
        for (auto& list : to_lane_) std::sort(list.begin(), list.end());
    }

    // The message that set `step` off: the last one its node received before it, if that
    // arrived at the same instant (a handler runs in no time).
    std::optional<std::size_t> trigger_of(const FigureStep& step) const {
        const auto& list = to_lane_[step.lane];
        auto after = std::lower_bound(list.begin(), list.end(), std::make_pair(step.sequence, std::size_t{0}));
        if (after == list.begin()) return std::nullopt;
        const std::size_t last = std::prev(after)->second;
        if (full_.steps[last].arrives != step.at) return std::nullopt;
        return last;
    }

private:
    const SequenceFigure& full_;
    std::vector<std::vector<std::pair<std::uint64_t, std::size_t>>> to_lane_;
};

// A checker's verdict on the step: a violation, or a protection that worked.
bool flagged(const FigureStep& step) {
    return step.tone == EventTone::violation || step.tone == EventTone::protection || !step.explanation.empty();
}

// How far a step is from the story's centre: the nearest flagged step in time, or, when
// nothing was flagged, the run's start.
class Distance {
public:
    explicit Distance(const SequenceFigure& full) {
        for (const auto& step : full.steps)
            if (flagged(step)) flagged_at_.push_back(step.at);
    }

    Duration to(Instant at) const {
        if (flagged_at_.empty()) return at - Instant{};
        const auto after = std::lower_bound(flagged_at_.begin(), flagged_at_.end(), at);
        Duration best = after != flagged_at_.end() ? *after - at : Duration{std::numeric_limits<std::int64_t>::max()};
        if (after != flagged_at_.begin()) best = std::min(best, at - *std::prev(after));
        return best;
    }

private:
    std::vector<Instant> flagged_at_;  // in time order, as the steps are
};

// What the story does with a step of the full figure.
enum class Fate { kept, retry, repeat, far, store_traffic, other };

std::vector<Fate> fates_of(const SequenceFigure& full) {
    const auto customers = story_customers(full);
    const std::size_t count = full.steps.size();
    std::vector<Fate> fate(count, Fate::other);
    // A message about a story customer that says again what its sender already said to the
    // same node about it (a status read each round) is a repeat, counted, not drawn.
    std::set<std::tuple<std::size_t, std::size_t, std::string>> said;
    for (std::size_t i = 0; i < count; ++i) {
        const FigureStep& step = full.steps[i];
        const bool about_story = step.customer && customers.contains(*step.customer);
        if (step.retry)
            fate[i] = Fate::retry;
        else if (about_story && step.is_message() && !flagged(step) && !step.lost && !step.stalled &&
                 !said.emplace(step.lane, *step.to_lane, step.text).second)
            fate[i] = Fate::repeat;
        else if (flagged(step) || step.tone == EventTone::fault || step.milestone || about_story ||
                 (!step.note.empty() && !step.reply) || step.lost ||
                 step.stalled)  // a message lost or stalled is a fault's work
            fate[i] = Fate::kept;
        else if (between_stores(step, full))
            fate[i] = Fate::store_traffic;
    }
    // A long run keeps of its background (the lock's life, faults, the flagged customers'
    // work) what lies nearest to what was flagged.
    std::vector<std::size_t> background;
    for (std::size_t i = 0; i < count; ++i)
        if (fate[i] == Fate::kept && !flagged(full.steps[i])) background.push_back(i);
    const auto flags = static_cast<std::size_t>(std::count(fate.begin(), fate.end(), Fate::kept)) - background.size();
    const std::size_t room = long_story > flags ? long_story - flags : 0;
    if (background.size() > room) {
        const Distance distance(full);
        std::stable_sort(background.begin(), background.end(), [&](std::size_t a, std::size_t b) {
            return distance.to(full.steps[a].at) < distance.to(full.steps[b].at);
        });
        for (std::size_t k = room; k < background.size(); ++k) fate[background[k]] = Fate::far;
    }
    // Every message a kept sentence names is drawn, however far from it (a renewal lost
    // to a partition long before the write it let through).
    std::map<std::uint64_t, std::size_t> step_of;  // trace event → step
    for (std::size_t i = 0; i < count; ++i) step_of.emplace(full.steps[i].sequence, i);
    for (std::size_t i = 0; i < count; ++i)
        if (fate[i] == Fate::kept)
            for (const std::uint64_t cited : full.steps[i].cites)
                if (const auto found = step_of.find(cited); found != step_of.end()) fate[found->second] = Fate::kept;
    // Back from each kept step to the message that set it off, and from a kept reply to the
    // request it answers (a bare "0" says nothing without its WAIT); a message kept that
    // way pulls in its own cause in turn, since causes come earlier in the trace.
    const Deliveries deliveries(full);
    for (std::size_t i = count; i-- > 0;) {
        if (fate[i] != Fate::kept) continue;
        if (const auto cause = deliveries.trigger_of(full.steps[i])) fate[*cause] = Fate::kept;
        if (const auto& request = full.steps[i].request)
            if (const auto found = step_of.find(*request); found != step_of.end()) fate[found->second] = Fate::kept;
    }
    return fate;
}

}  // namespace

StoryFigure build_story_figure(const SequenceFigure& full) {
    StoryFigure story;
    const std::size_t count = full.steps.size();
    const std::vector<Fate> fate = fates_of(full);
    std::vector<bool> kept(count, false);
    for (std::size_t i = 0; i < count; ++i) {
        switch (fate[i]) {
            case Fate::kept: kept[i] = true; break;
            case Fate::retry: ++story.retries_folded; break;
            case Fate::repeat: ++story.repeats_folded; break;
            case Fate::far: ++story.far_from_flags; break;
            case Fate::store_traffic: ++story.store_traffic_folded; break;
            case Fate::other: ++story.other_left_out; break;
        }
    }

    std::vector<bool> lane_used(full.lanes.size(), false);
    for (std::size_t i = 0; i < count; ++i) {
        const FigureStep& step = full.steps[i];
        if (!kept[i]) continue;
        lane_used[step.lane] = true;
        if (step.is_message()) lane_used[*step.to_lane] = true;
    }
    for (const auto& span : full.spans)
        if (is_fault_span(span)) lane_used[span.lane] = true;

    SequenceFigure& figure = story.figure;
    std::vector<std::size_t> new_lane(full.lanes.size(), 0);
    for (std::size_t lane = 0; lane < full.lanes.size(); ++lane) {
        if (!lane_used[lane]) {
            story.lanes_left_out.push_back(full.lanes[lane]);
            continue;
        }
        new_lane[lane] = figure.lanes.size();
        figure.lanes.push_back(full.lanes[lane]);
        figure.is_server.push_back(full.is_server[lane]);
    }
    for (std::size_t i = 0; i < count; ++i) {
        if (!kept[i]) continue;
        FigureStep step = full.steps[i];
        step.lane = new_lane[step.lane];
        if (step.to_lane) step.to_lane = new_lane[*step.to_lane];
        figure.steps.push_back(std::move(step));
    }
    for (const auto& span : full.spans) {
        if (!lane_used[span.lane] || !lane_used[span.holder]) continue;
        FigureSpan copy = span;
        copy.lane = new_lane[span.lane];
        copy.holder = new_lane[span.holder];
        figure.spans.push_back(std::move(copy));
    }
    figure.end = full.end;
    figure.messages = full.messages;
    figure.left_out = full.left_out;
    figure.has_violation = full.has_violation;
    return story;
}

}  // namespace locksim
