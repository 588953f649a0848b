#pragma once
// Where a sequence figure puts time: it runs down the page and spacing grows with
// elapsed true time, so a slanted arrow shows a slow message. Two exceptions, both drawn:
// a stretch in which nothing happens is cut short at a break that says how long it was
// (a 40 s pause must not become 4000 px of nothing), and steps closer together than a
// line of text are spread apart (the time printed beside each row stays exact).
#include <cstddef>
#include <vector>

#include "reports/figure/sequence_figure.hpp"

namespace locksim {

// A duration as a length of drawing, to multiply by pixels per second (this axis, the
// vulnerability map's strip). Only for drawing: simulated time stays integer nanoseconds.
double in_seconds(Duration d);

struct AxisBreak {
    double top = 0;     // y where the cut begins
    double bottom = 0;  // y where time resumes
    Instant from;
    Instant to;
};

class TimeAxis {
public:
    struct Settings {
        double top = 0;  // y of the first step
        // Per step, the height its row of text takes below it: the next step comes no nearer.
        // A step without an entry takes `row`, one line.
        std::vector<double> rows;
        double row = 18;
        double break_height = 34;
        Duration break_after = seconds(4);  // an idle stretch longer than this is cut
        double max_seconds_height = 2400;   // time-proportional space, at most (long runs get a smaller scale)
        double px_per_second = 12;          // the scale for runs short enough
    };

    TimeAxis(const SequenceFigure& figure, Settings settings);

    double step_y(std::size_t step) const { return step_y_[step]; }
    // Any instant: the first step at that instant, else between the steps around it.
    double y_at(Instant at) const;
    const std::vector<AxisBreak>& breaks() const { return breaks_; }
    double bottom() const { return bottom_; }
    double px_per_second() const { return scale_; }

private:
    struct Knot {
        Instant at;
        double y;
    };
    std::vector<Knot> knots_;  // one per step, plus the run's end
    std::vector<double> step_y_;
    std::vector<AxisBreak> breaks_;
    double bottom_ = 0;
    double scale_ = 0;
};

}  // namespace locksim
