#include "reports/figure/time_axis.hpp"

#include <algorithm>

namespace locksim {

double in_seconds(Duration d) {
    return static_cast<double>(d.ns) / 1e9;
}

namespace {

// The time-proportional part of the figure: every gap shorter than a break.
Duration busy_time(const SequenceFigure& figure, Duration break_after) {
    Duration total{};
    for (std::size_t i = 1; i < figure.steps.size(); ++i) {
        const Duration gap = figure.steps[i].at - figure.steps[i - 1].at;
        if (gap <= break_after) total += gap;
    }
    return total;
}

}  // namespace

TimeAxis::TimeAxis(const SequenceFigure& figure, Settings settings) {
    const double busy = in_seconds(busy_time(figure, settings.break_after));
    scale_ = busy * settings.px_per_second > settings.max_seconds_height ? settings.max_seconds_height / busy
                                                                         : settings.px_per_second;
    double y = settings.top;
    Instant previous;
    for (std::size_t i = 0; i < figure.steps.size(); ++i) {
        const FigureStep& step = figure.steps[i];
        const double needed = step.retry ? settings.thin_row : settings.row;
        if (i > 0) {
            const Duration gap = step.at - previous;
            if (gap > settings.break_after) {
                breaks_.push_back(
                    AxisBreak{y + settings.row / 2, y + settings.row / 2 + settings.break_height, previous, step.at});
                y += settings.break_height + needed;
            } else {
                y += std::max(needed, in_seconds(gap) * scale_);
            }
        }
        step_y_.push_back(y);
        knots_.push_back(Knot{step.at, y});
        previous = step.at;
    }
    // The run goes on after its last step until it stops: arrows in flight and open bars
    // need somewhere to end.
    const Duration tail = figure.steps.empty() ? Duration{} : figure.end - previous;
    if (tail > settings.break_after) {
        breaks_.push_back(
            AxisBreak{y + settings.row / 2, y + settings.row / 2 + settings.break_height, previous, figure.end});
        y += settings.break_height + settings.row;
    } else {
        y += std::max(settings.row, in_seconds(tail) * scale_);
    }
    knots_.push_back(Knot{figure.end, y});
    bottom_ = y;
}

double TimeAxis::y_at(Instant at) const {
    if (knots_.empty()) return 0;
    auto after = std::lower_bound(knots_.begin(), knots_.end(), at, [](const Knot& k, Instant t) { return k.at < t; });
    if (after == knots_.end()) return knots_.back().y;
    if (after->at == at || after == knots_.begin()) return after->y;
    const Knot& before = *(after - 1);
    const double share = static_cast<double>((at - before.at).ns) / static_cast<double>((after->at - before.at).ns);
    return before.y + share * (after->y - before.y);
}

}  // namespace locksim
