// A violation explained in one sentence: not only "customer 42 charged a second time"
// but who sent that request, and how long after the store had let that sender's lease
// go — the seed's point that the late holder never knew.
#include "reports/figure/violation_story.hpp"

#include <fmt/format.h>

#include <optional>

#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// The request that made the step happen: the last arrow into its lane that arrived by then.
const FigureStep* cause_of(const SequenceFigure& figure, std::size_t index) {
    const FigureStep& step = figure.steps[index];
    for (std::size_t i = index; i-- > 0;) {
        const FigureStep& candidate = figure.steps[i];
        if (candidate.is_message() && !candidate.lost && !candidate.in_flight && *candidate.to_lane == step.lane &&
            candidate.arrives <= step.at)
            return &candidate;
    }
    return nullptr;
}

// When the store last let go of the sender's lock before it sent: the end of its latest
// grant that had ended by then.
std::optional<Instant> store_let_go(const SequenceFigure& figure, std::size_t sender, Instant sent) {
    std::optional<Instant> latest;
    bool held_at_send = false;
    for (const auto& span : figure.spans) {
        if (span.kind != FigureSpan::Kind::granted || span.holder != sender) continue;
        if (span.from <= sent && (span.open || sent < span.to)) held_at_send = true;
        if (!span.open && span.to <= sent && (!latest || span.to > *latest)) latest = span.to;
    }
    if (held_at_send) return std::nullopt;
    return latest;
}

const FigureSpan* pause_before(const SequenceFigure& figure, std::size_t lane, Instant sent) {
    const FigureSpan* found = nullptr;
    for (const auto& span : figure.spans)
        if (span.kind == FigureSpan::Kind::paused && span.lane == lane && span.to <= sent) found = &span;
    return found;
}

}  // namespace

void explain_violations(SequenceFigure& figure) {
    for (std::size_t i = 0; i < figure.steps.size(); ++i) {
        FigureStep& step = figure.steps[i];
        if (step.tone != EventTone::violation || step.explanation.empty()) continue;
        const FigureStep* cause = cause_of(figure, i);
        if (cause == nullptr) continue;
        const std::string& sender = figure.lanes[cause->lane];
        std::string story = fmt::format("{} sent it at {}", sender, format_seconds(cause->at));
        if (auto let_go = store_let_go(figure, cause->lane, cause->at))
            story += fmt::format(", {} after its lease had ended at the store ({})",
                                 format_duration_rounded(cause->at - *let_go), format_seconds(*let_go));
        if (const FigureSpan* pause = pause_before(figure, cause->lane, cause->at))
            story += fmt::format(", having been frozen by a {} of {} that it could not notice", pause->label,
                                 format_duration_rounded(pause->to - pause->from));
        step.explanation += ": " + story;
    }
}

}  // namespace locksim
