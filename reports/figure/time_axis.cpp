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
    const auto row_of = [&](std::size_t step) {
        return step < settings.rows.size() ? settings.rows[step] : settings.row;
    };
    double y = settings.top;
    Instant previous;
    // An idle stretch is cut after the previous row's text, and time resumes a line above the next.
    const auto cut = [&](Instant from, Instant to, double above) {
        breaks_.push_back(
            AxisBreak{y + above - settings.row / 2, y + above - settings.row / 2 + settings.break_height, from, to});
        y += above + settings.break_height;
    };
    for (std::size_t i = 0; i < figure.steps.size(); ++i) {
        const FigureStep& step = figure.steps[i];
        if (i > 0) {
            const double needed = row_of(i - 1);
            const Duration gap = step.at - previous;
            if (gap > settings.break_after)
                cut(previous, step.at, needed);
            else
                y += std::max(needed, in_seconds(gap) * scale_);
        }
        step_y_.push_back(y);
        knots_.push_back(Knot{step.at, y});
        previous = step.at;
    }
    // The run goes on after its last step until it stops: arrows in flight and open bars
    // need somewhere to end.
    const double last_row = figure.steps.empty() ? settings.row : row_of(figure.steps.size() - 1);
    const Duration tail = figure.steps.empty() ? Duration{} : figure.end - previous;
    if (tail > settings.break_after)
        cut(previous, figure.end, last_row);
    else
        y += std::max(last_row, in_seconds(tail) * scale_);
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
