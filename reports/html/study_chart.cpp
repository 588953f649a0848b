#include "reports/html/study_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string_view>
#include <vector>

#include "reports/figure/study_series.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/palette.hpp"
#include "reports/sweep_text.hpp"
#include "reports/text_style.hpp"

namespace locksim {
namespace {

// The geometry of a chart, in px. 720 wide, so that a page read at 800 px shows it whole
// within its margins (752 px); a narrower window scales it down (study_page.cpp's style)
// rather than cutting off the last value and the legend.
constexpr double chart_width = 720;
constexpr double plot_left = 112;  // room for "0.001%" and "0 of 1,000 runs" beside the axis
constexpr double plot_right = chart_width - 24;
// The outermost values sit this far inside the plot, more when many series stand side
// by side around each value, so that the outermost series stay inside too.
constexpr double min_value_inset = 40;
constexpr double max_value_inset = 120;
constexpr double inset_margin = 12;  // between the outermost series and the plot's edge
constexpr double plot_top = 34;      // under the axis' title
// The decades share this much height, each within these bounds.
constexpr double decades_height = 260;
constexpr double min_decade_height = 44;
constexpr double max_decade_height = 130;
constexpr double floor_gap = 18;     // between the lowest decade and the band of zeros: the axis' cut
constexpr double floor_height = 34;  // the band of zeros
constexpr double legend_gap = 62;    // under the band: the value labels and the axis' title
constexpr double legend_row = 20;
// Series at one value stand side by side, at most this far apart, so that their bars do
// not hide one another.
constexpr double max_dodge = 12;
constexpr double cap_half_width = 4;
// Text is placed by estimate, so nothing depends on the fonts a reader has.
constexpr double value_label_em = 6.7;   // 11px monospace
constexpr double legend_label_em = 6.9;  // 12px sans-serif, on average
constexpr std::size_t value_label_limit = 16;
constexpr std::size_t series_label_limit = 64;

// "6", "2.5", "1,000": how many times the largest value is the smallest, never in
// scientific notation.
std::string factor_text(double factor) {
    if (factor >= 10) return grouped(static_cast<std::uint64_t>(std::llround(factor)));
    return fmt::format("{:.2g}", factor);
}

// ---- How a series looks: a colour and a marker shape, so that it reads in grey too

constexpr std::array<std::string_view, 6> marker_shapes{"circle",  "square",        "triangle",
                                                        "diamond", "triangle-down", "plus"};

// Series k takes colour k mod 6 and a shape that shifts by one every six series, so the
// first 36 series all differ in colour, shape or both, and the first six in both. The
// servers' colours: the palette's distinct hues that mean neither violation nor protection.
std::string_view series_colour(std::size_t series) {
    return palette::node_colour(series % marker_shapes.size(), true);
}
std::size_t series_shape(std::size_t series) {
    return (series + series / marker_shapes.size()) % marker_shapes.size();
}

// A marker centred at (x, y). A hollow one (white inside, drawn in the series' colour)
// marks a rate of 0, which sits in the band of zeros rather than on the log axis.
std::string marker(std::size_t shape, double x, double y, std::string_view colour, bool hollow) {
    const std::string paint = hollow ? fmt::format("fill=\"#fff\" stroke=\"{}\" stroke-width=\"1.8\"", colour)
                                     : fmt::format("fill=\"{}\" stroke=\"#fff\" stroke-width=\"0.8\"", colour);
    const auto polygon = [&](std::initializer_list<std::pair<double, double>> corners) {
        std::string points;
        for (const auto& [dx, dy] : corners)
            points += fmt::format("{}{:.1f},{:.1f}", points.empty() ? "" : " ", x + dx, y + dy);
        return fmt::format("<polygon class=\"marker {}\" points=\"{}\" {}/>", marker_shapes[shape], points, paint);
    };
    switch (shape) {
        case 0:
            return fmt::format("<circle class=\"marker circle\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.6\" {}/>", x, y,
                               paint);
        case 1:
            return fmt::format(
                "<rect class=\"marker square\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"8.2\" height=\"8.2\" {}/>", x - 4.1,
                y - 4.1, paint);
        case 2: return polygon({{0, -5.6}, {5.2, 3.6}, {-5.2, 3.6}});
        case 3: return polygon({{0, -5.8}, {5.8, 0}, {0, 5.8}, {-5.8, 0}});
        case 4: return polygon({{0, 5.6}, {5.2, -3.6}, {-5.2, -3.6}});
        default:
            return polygon({{-1.9, -5.4},
                            {1.9, -5.4},
                            {1.9, -1.9},
                            {5.4, -1.9},
                            {5.4, 1.9},
                            {1.9, 1.9},
                            {1.9, 5.4},
                            {-1.9, 5.4},
                            {-1.9, 1.9},
                            {-5.4, 1.9},
                            {-5.4, -1.9},
                            {-1.9, -1.9}});
    }
}

class StudyChartWriter {
public:
    StudyChartWriter(const Study& study, std::size_t field, const RateAxis& rates, std::string anchor)
        : study_(study),
          field_(study.fields[field]),
          rates_(rates),
          values_(study.fields[field]),
          series_(study_series(study, field)),
          anchor_(std::move(anchor)) {
        decade_height_ = std::clamp(decades_height / rates.decades(), min_decade_height, max_decade_height);
        log_bottom_ = plot_top + decade_height_ * rates.decades();
        floor_top_ = log_bottom_ + floor_gap;
        floor_bottom_ = floor_top_ + floor_height;
        legend_top_ = floor_bottom_ + legend_gap;

        // Series side by side within 70 % of the narrowest space between two values, and
        // within the inset at the plot's edges.
        const double gaps = series_.size() > 1 ? static_cast<double>(series_.size() - 1) : 1;
        inset_ = std::clamp(gaps * max_dodge / 2 + inset_margin, min_value_inset, max_value_inset);
        std::vector<double> places;
        for (std::size_t v = 0; v < field_.values.size(); ++v) places.push_back(value_x(v));
        std::sort(places.begin(), places.end());
        double narrowest = plot_right - plot_left;
        for (std::size_t i = 1; i < places.size(); ++i)
            if (places[i] > places[i - 1]) narrowest = std::min(narrowest, places[i] - places[i - 1]);
        dodge_ =
            series_.size() > 1 ? std::min({max_dodge, 0.7 * narrowest / gaps, 2 * (inset_ - inset_margin) / gaps}) : 0;

        std::size_t widest = floor_key_text().size();
        for (const auto& series : series_)
            widest = std::max(widest, shortened(series.label(), series_label_limit).size());
        const double column = 34 + legend_label_em * static_cast<double>(widest) + 24;
        legend_columns_ = std::clamp<std::size_t>(static_cast<std::size_t>((chart_width - 32) / column), 1, 3);
    }

    std::string render() {
        const std::size_t entries = series_.size() + 1;  // and the key to a hollow marker
        const std::size_t rows = (entries + legend_columns_ - 1) / legend_columns_;
        const double height = legend_top_ + legend_row * static_cast<double>(rows) + 8;
        out_ += fmt::format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"study{0}\" width=\"{1:.0f}\" height=\"{2:.0f}\" "
            "viewBox=\"0 0 {1:.0f} {2:.0f}\" role=\"img\" aria-labelledby=\"{3}-title\">\n"
            "<title id=\"{3}-title\">Violation rate against {4}: {5} series at {6} value{7}, seeds {8}…{9}</title>\n",
            values_.logarithmic() ? " log-x" : "", chart_width, height, anchor_, escaped(field_.path), series_.size(),
            field_.values.size(), field_.values.size() == 1 ? "" : "s", study_.seeds.first,
            study_.seeds.first + study_.seeds.count - 1);
        rate_axis();
        value_axis();
        lines();
        points();
        legend();
        out_ += "</svg>\n";
        return std::move(out_);
    }

private:
    double value_x(std::size_t value) const {
        return plot_left + inset_ + values_.fraction(value) * (plot_right - plot_left - 2 * inset_);
    }
    double point_x(std::size_t value, std::size_t series) const {
        return value_x(value) + dodge_ * (static_cast<double>(series) - static_cast<double>(series_.size() - 1) / 2);
    }
    double floor_y() const { return floor_top_ + floor_height / 2; }
    // Where a rate goes up the chart: on the log axis, or in the band when it is 0.
    double rate_y(double rate) const {
        if (rate <= 0) return floor_y();
        return log_bottom_ - rates_.height_fraction(rate) * decade_height_ * rates_.decades();
    }
    std::string floor_key_text() const {
        return fmt::format("hollow, in the band: {} had a violation", zero_label(study_.seeds.count));
    }

    // Gridlines at each decade, fainter ones between; the axis cut by a zig-zag above the
    // band of zeros, since the log scale never reaches 0.
    void rate_axis() {
        out_ += fmt::format(
            "<text x=\"{:.0f}\" y=\"16\" class=\"axis-title\">violation rate, on a log scale (a darker line at every "
            "factor of 10), with its 95 % interval</text>\n",
            plot_left - 8);
        const bool label_between = decade_height_ >= 90;
        for (int decade = rates_.bottom_decade(); decade <= rates_.top_decade(); ++decade) {
            const double y = rate_y(std::pow(10.0, decade));
            out_ += fmt::format(
                "<g class=\"decade\" data-decade=\"{0}\"><line x1=\"{1:.0f}\" y1=\"{2:.1f}\" x2=\"{3:.0f}\" "
                "y2=\"{2:.1f}\" stroke=\"#d0d7de\" stroke-width=\"1\"/><text x=\"{4:.0f}\" y=\"{5:.1f}\" "
                "class=\"tick-label\" text-anchor=\"end\">{6}</text></g>\n",
                decade, plot_left, y, plot_right, plot_left - 8, y + 4, gridline_label(decade));
            if (decade == rates_.top_decade()) break;
            for (int mantissa = 2; mantissa <= 9; ++mantissa) {
                const double minor = rate_y(mantissa * std::pow(10.0, decade));
                out_ += fmt::format(
                    "<line class=\"minor\" x1=\"{0:.0f}\" y1=\"{1:.1f}\" x2=\"{2:.0f}\" y2=\"{1:.1f}\" "
                    "stroke=\"#eef1f4\" stroke-width=\"1\"/>",
                    plot_left, minor, plot_right);
                if (label_between && (mantissa == 2 || mantissa == 5))
                    out_ += fmt::format(
                        "<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"tick-label minor-label\" "
                        "text-anchor=\"end\">{}</text>",
                        plot_left - 8, minor + 4, gridline_label(decade, mantissa));
            }
            out_ += "\n";
        }
        std::string zigzag = fmt::format("M{:.0f},{:.1f}", plot_left, log_bottom_);
        for (int step = 1; step <= 4; ++step)
            zigzag += fmt::format(" L{:.0f},{:.1f}", plot_left + (step % 2 == 1 ? -4.0 : 4.0),
                                  log_bottom_ + floor_gap * step / 5.0);
        zigzag += fmt::format(" L{:.0f},{:.1f}", plot_left, floor_top_);
        // "0 of 20 runs" on one line where it fits beside the axis, else "runs" goes under.
        const std::string label = zero_label(study_.seeds.count);
        const auto last_space = label.rfind(' ');
        const bool one_line = label.size() <= 15;
        out_ += fmt::format(
            "<g class=\"floor\"><rect class=\"zero-band\" x=\"{0:.0f}\" y=\"{1:.1f}\" width=\"{2:.0f}\" "
            "height=\"{3:.0f}\" fill=\"#f6f8fa\" stroke=\"#d0d7de\" stroke-dasharray=\"3 3\"/>"
            "<text x=\"{4:.0f}\" y=\"{5:.1f}\" class=\"floor-label\" text-anchor=\"end\">{6}</text>"
            "<title>A rate of 0 has no place on a log scale: it is drawn in this band, and its bar rises to the "
            "largest rate that {7} with none cannot rule out</title></g>\n"
            "<line x1=\"{8:.0f}\" y1=\"{9:.0f}\" x2=\"{8:.0f}\" y2=\"{10:.1f}\" stroke=\"{11}\" stroke-width=\"1\"/>"
            "<path class=\"axis-cut\" d=\"{12}\" fill=\"none\" stroke=\"{11}\" stroke-width=\"1\"/>"
            "<line x1=\"{8:.0f}\" y1=\"{13:.1f}\" x2=\"{8:.0f}\" y2=\"{14:.1f}\" stroke=\"{11}\" "
            "stroke-width=\"1\"/>\n",
            plot_left, floor_top_, plot_right - plot_left, floor_height, plot_left - 8,
            one_line ? floor_y() + 4 : floor_y() - 2,
            one_line
                ? label
                : fmt::format("{}</text><text x=\"{:.0f}\" y=\"{:.1f}\" class=\"floor-label\" "
                              "text-anchor=\"end\">{}",
                              label.substr(0, last_space), plot_left - 8, floor_y() + 11, label.substr(last_space + 1)),
            label.substr(std::string_view("0 of ").size()), plot_left, plot_top - 6, log_bottom_, palette::faint,
            zigzag, floor_top_, floor_bottom_);
    }

    // A tick and the value as written under each value; a label that would run into the
    // one before it is left out (the tick keeps its title, the table every value).
    void value_axis() {
        const double y = floor_bottom_;
        out_ += fmt::format(
            "<g class=\"value-axis\"><line x1=\"{0:.0f}\" y1=\"{1:.1f}\" x2=\"{2:.0f}\" y2=\"{1:.1f}\" stroke=\"{3}\" "
            "stroke-width=\"1\"/>\n",
            plot_left, y, plot_right, palette::faint);
        std::vector<std::size_t> order(field_.values.size());
        for (std::size_t v = 0; v < order.size(); ++v) order[v] = v;
        std::stable_sort(order.begin(), order.end(),
                         [this](std::size_t a, std::size_t b) { return value_x(a) < value_x(b); });
        double free = -std::numeric_limits<double>::infinity();
        bool thinned = false;
        for (const std::size_t v : order) {
            const double x = value_x(v);
            const std::string text = shortened(field_.written[v], value_label_limit);
            const double half = value_label_em * static_cast<double>(text.size()) / 2;
            const bool fits = x - half >= free;
            thinned = thinned || !fits;
            out_ += fmt::format(
                "<g class=\"value-tick\"><title>{0}={1}</title><line x1=\"{2:.1f}\" y1=\"{3:.1f}\" x2=\"{2:.1f}\" "
                "y2=\"{4:.1f}\" stroke=\"{5}\" stroke-width=\"1\"/>",
                escaped(field_.path), escaped(field_.written[v]), x, y, y + 5, palette::faint);
            if (fits) {
                out_ += fmt::format(
                    "<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"value-label\" text-anchor=\"middle\">{}</text>", x, y + 18,
                    escaped(text));
                free = x + half + 8;
            }
            out_ += "</g>\n";
        }
        std::string placing;
        if (values_.logarithmic())
            placing = "on a log scale: the values span a factor of " + factor_text(values_.span());
        else if (values_.span() > 0 && field_.values.size() > 1)
            placing = "evenly spaced in the order given (they span a factor of " + factor_text(values_.span()) +
                      ", under 10)";
        else
            placing = "evenly spaced in the order given";
        out_ += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"axis-title\">{} → {}{}</text></g>\n", plot_left,
                            y + 38, escaped(field_.path), placing,
                            thinned ? "; labels that would overlap are left out" : "");
    }

    // A series' points joined in the order they stand across, where both are rates on the
    // log scale. A rate of 0 is never joined: on a log scale 0 lies infinitely far down, and
    // a line from 0.2 % into the band would climb decades no run measured (a line reads as
    // the rates between its ends). Its hollow marker and its bar, up to the largest rate its
    // runs cannot rule out, say all there is; the line stops at the last rate measured.
    void lines() {
        for (std::size_t s = 0; s < series_.size(); ++s) {
            struct Place {
                double x, y;
                bool zero;
            };
            std::vector<Place> places;
            for (std::size_t v = 0; v < series_[s].tallies.size(); ++v)
                if (const DesignTally* tally = series_[s].tallies[v]) {
                    const RateInterval interval = rate_interval(*tally);
                    places.push_back(Place{point_x(v, s), rate_y(interval.rate), interval.violating == 0});
                }
            std::stable_sort(places.begin(), places.end(), [](const Place& a, const Place& b) { return a.x < b.x; });
            std::string path;
            for (std::size_t i = 1; i < places.size(); ++i) {
                if (places[i - 1].zero || places[i].zero) continue;
                path += fmt::format("M{:.1f},{:.1f} L{:.1f},{:.1f} ", places[i - 1].x, places[i - 1].y, places[i].x,
                                    places[i].y);
            }
            if (!path.empty())
                out_ += fmt::format(
                    "<path class=\"series-line\" d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" "
                    "stroke-opacity=\"0.75\"/>\n",
                    path.substr(0, path.size() - 1), series_colour(s));
        }
    }

    // Each point: its interval as a bar with caps, then its marker; its numbers in the title.
    void points() {
        for (std::size_t s = 0; s < series_.size(); ++s) {
            const auto colour = series_colour(s);
            for (std::size_t v = 0; v < series_[s].tallies.size(); ++v) {
                const DesignTally* tally = series_[s].tallies[v];
                if (tally == nullptr) continue;
                const RateInterval interval = rate_interval(*tally);
                const bool zero = interval.violating == 0;
                const double x = point_x(v, s);
                const double bottom = rate_y(interval.low);
                const double top = rate_y(interval.high);
                out_ += fmt::format(
                    "<g class=\"point{0}\" data-series=\"{1}\" data-value=\"{2}\"><title>{3}, {4}={2}: {5} of {6} "
                    "runs, "
                    "{7}</title>"
                    "<line class=\"interval\" x1=\"{8:.1f}\" y1=\"{9:.1f}\" x2=\"{8:.1f}\" y2=\"{10:.1f}\" "
                    "stroke=\"{11}\" stroke-width=\"1.6\"/>"
                    "<line x1=\"{12:.1f}\" y1=\"{10:.1f}\" x2=\"{13:.1f}\" y2=\"{10:.1f}\" stroke=\"{11}\" "
                    "stroke-width=\"1.6\"/>",
                    zero ? " at-floor" : "", s, escaped(field_.written[v]), escaped(series_[s].label()),
                    escaped(field_.path), grouped(interval.violating), grouped(interval.runs),
                    escaped(rate_with_interval(*tally)), x, bottom, top, colour, x - cap_half_width,
                    x + cap_half_width);
                if (!zero)
                    out_ += fmt::format(
                        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                        "stroke-width=\"1.6\"/>",
                        x - cap_half_width, bottom, x + cap_half_width, bottom, colour);
                out_ += marker(series_shape(s), x, rate_y(interval.rate), colour, zero) + "</g>\n";
            }
        }
    }

    void legend() {
        const double column_width = (chart_width - 32) / static_cast<double>(legend_columns_);
        const auto place = [&](std::size_t entry) {
            return std::pair{16 + column_width * static_cast<double>(entry % legend_columns_),
                             legend_top_ + legend_row * static_cast<double>(entry / legend_columns_)};
        };
        out_ += "<g class=\"legend\">\n";
        for (std::size_t s = 0; s < series_.size(); ++s) {
            const auto [x, y] = place(s);
            const auto colour = series_colour(s);
            const std::string label = series_[s].label();
            out_ += fmt::format(
                "<g class=\"legend-entry\" data-series=\"{0}\"><title>{1}</title><line x1=\"{2:.1f}\" y1=\"{3:.1f}\" "
                "x2=\"{4:.1f}\" y2=\"{3:.1f}\" stroke=\"{5}\" stroke-width=\"1.5\"/>{6}"
                "<text x=\"{7:.1f}\" y=\"{8:.1f}\" class=\"legend-label\">{9}</text></g>\n",
                s, escaped(label), x, y, x + 26, colour, marker(series_shape(s), x + 13, y, colour, false), x + 34,
                y + 4, escaped(shortened(label, series_label_limit)));
        }
        const auto [x, y] = place(series_.size());
        out_ += fmt::format(
            "<g class=\"legend-entry floor-key\">{}<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"legend-label\">{}</text>"
            "</g>\n</g>\n",
            marker(0, x + 13, y, palette::ink, true), x + 34, y + 4, escaped(floor_key_text()));
    }

    const Study& study_;
    const VariedField& field_;
    const RateAxis& rates_;
    ValueAxis values_;
    std::vector<StudySeries> series_;
    std::string anchor_;
    double decade_height_ = 0;
    double log_bottom_ = 0;
    double floor_top_ = 0;
    double floor_bottom_ = 0;
    double legend_top_ = 0;
    double inset_ = min_value_inset;
    double dodge_ = 0;
    std::size_t legend_columns_ = 1;
    std::string out_;
};

}  // namespace

std::string zero_label(std::uint64_t runs) {
    return fmt::format("0 of {} run{}", grouped(runs), runs == 1 ? "" : "s");
}

std::string render_study_chart(const Study& study, std::size_t field, const RateAxis& rates,
                               const std::string& anchor) {
    return StudyChartWriter(study, field, rates, anchor).render();
}

}  // namespace locksim
