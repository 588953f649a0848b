#include "reports/html/svg_figure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/figure/time_axis.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/palette.hpp"
#include "reports/html/svg_parts.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

constexpr double gutter = 96;  // step number and true time
constexpr double lane_width = 150;
constexpr double header = 44;
constexpr double caption_width = 420;
constexpr std::size_t label_limit = 48;  // longer labels are cut; the full text is in <title>
constexpr std::size_t text_limit = 60;
constexpr std::size_t caption_limit = 90;
// Wide enough for most sans-serif fonts at the sizes the stylesheet sets: text is placed
// by estimate, so nothing depends on the fonts a reader has.
constexpr double text_em = 6.8;
constexpr double caption_em = 7.2;

// Where a step's own sentence ends, so a caption beside it starts clear of it.
double text_end(const FigureStep& step, double x) {
    if (step.is_message()) return x;
    const std::size_t shown = std::min(step.text.size(), text_limit) + 2;
    const double em = step.tone == EventTone::normal ? text_em : text_em * 1.12;  // bold is wider
    return x + 9 + em * static_cast<double>(shown);
}

double lane_x(std::size_t lane) {
    return gutter + lane_width * (static_cast<double>(lane) + 0.5);
}

class SvgWriter {
public:
    SvgWriter(const SequenceFigure& figure, std::string anchor)
        : figure_(figure),
          anchor_(std::move(anchor)),
          axis_(figure, TimeAxis::Settings{.top = header + 24}),
          colours_(lane_colours(figure)) {}

    std::string render() {
        double width = gutter + lane_width * static_cast<double>(figure_.lanes.size()) + caption_width;
        for (const auto& step : figure_.steps)
            if (!step.explanation.empty())
                width = std::max(
                    width, caption_x(step) +
                               caption_em * static_cast<double>(std::min(step.explanation.size(), caption_limit) + 6));
        const double height = axis_.bottom() + 30;
        out_ += fmt::format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
            "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" aria-labelledby=\"{2}-title\">\n"
            "<title id=\"{2}-title\">Sequence figure: {3} nodes, {4} steps, time running down</title>\n",
            width, height, escaped(anchor_), figure_.lanes.size(), figure_.steps.size());
        out_ += svg_definitions(anchor_);
        lanes(height);
        spans();
        breaks(width);
        steps();
        out_ += "</svg>\n";
        return std::move(out_);
    }

private:
    void lanes(double height) {
        for (std::size_t lane = 0; lane < figure_.lanes.size(); ++lane) {
            const double x = lane_x(lane);
            out_ += fmt::format("<g class=\"lane\" data-node=\"{}\">", escaped(figure_.lanes[lane]));
            out_ += fmt::format(
                "<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
                "stroke-width=\"1.2\" opacity=\"0.55\"/>",
                x, header, height - 20, colours_[lane]);
            out_ += fmt::format("<rect x=\"{:.1f}\" y=\"6\" width=\"{:.1f}\" height=\"28\" rx=\"5\" fill=\"{}\"/>",
                                x - lane_width / 2 + 8, lane_width - 16, colours_[lane]);
            out_ += fmt::format(
                "<text x=\"{:.1f}\" y=\"25\" text-anchor=\"middle\" class=\"lane-name\" fill=\"{}\">{}</text></g>\n", x,
                palette::text_on(colours_[lane]), escaped(shortened(figure_.lanes[lane], 20)));
        }
    }

    void spans() {
        std::map<std::size_t, std::vector<std::size_t>> holders_on_lane;  // granted bars: one column per holder
        for (const auto& span : figure_.spans) {
            const double top = axis_.y_at(span.from);
            const double bottom = std::max(axis_.y_at(span.to), top + 2);
            const double x = lane_x(span.lane);
            const std::string tip = span_tip(span);
            switch (span.kind) {
                case FigureSpan::Kind::believed:
                    out_ += svg_bar("believed", x - 15, top, 7, bottom - top, colours_[span.holder], "", tip);
                    break;
                case FigureSpan::Kind::granted: {
                    auto& column = holders_on_lane[span.lane];
                    auto at = std::find(column.begin(), column.end(), span.holder);
                    if (at == column.end()) at = column.insert(column.end(), span.holder);
                    const double offset = 8 + 9 * static_cast<double>((at - column.begin()) % 4);
                    out_ += svg_bar("granted", x + offset, top, 7, bottom - top, colours_[span.holder],
                                    fmt::format("url(#{}-hatch)", escaped(anchor_)), tip);
                    break;
                }
                case FigureSpan::Kind::paused:
                case FigureSpan::Kind::down: {
                    const bool down = span.kind == FigureSpan::Kind::down;
                    out_ += fmt::format(
                        "<g class=\"{}\"><title>{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"40\" "
                        "height=\"{:.1f}\" "
                        "fill=\"{}\" opacity=\"0.22\"/>",
                        down ? "down" : "pause", escaped(tip), x - 20, top, bottom - top, palette::fault);
                    out_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"span-label\">{} {}</text></g>\n",
                                        x - 18, top + 11, escaped(down ? std::string("down") : span.label),
                                        escaped(format_duration_rounded(span.to - span.from)));
                    break;
                }
            }
        }
    }

    // A zig-zag across the figure where an idle stretch was cut, and how long it was.
    void breaks(double width) {
        for (const auto& cut : axis_.breaks()) {
            const double middle = (cut.top + cut.bottom) / 2;
            std::string zigzag;
            for (double x = 4; x < width - 4; x += 12)
                zigzag += fmt::format("{}{:.0f},{:.1f} ", zigzag.empty() ? "M" : "L", x,
                                      middle + (static_cast<int>(x / 12) % 2 == 0 ? -4.0 : 4.0));
            out_ += fmt::format(
                "<g class=\"break\"><rect x=\"0\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.1f}\" "
                "fill=\"#f6f8fa\"/><path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\"/>"
                "<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"break-label\">{} later</text></g>\n",
                cut.top, width, cut.bottom - cut.top, zigzag, palette::faint, 8.0, middle - 6,
                escaped(format_duration_rounded(cut.to - cut.from)));
        }
    }

    double caption_x(const FigureStep& step) const {
        const double column = gutter + lane_width * static_cast<double>(figure_.lanes.size()) + 14;
        return std::max(column, text_end(step, lane_x(step.lane)) + 16);
    }

    void steps() {
        for (std::size_t i = 0; i < figure_.steps.size(); ++i) {
            const FigureStep& step = figure_.steps[i];
            const double y = axis_.step_y(i);
            std::string classes = step.is_message() ? "step message" : "step event";
            if (step.retry) classes += " retry";
            if (!step.related) classes += " faded";
            if (step.tone == EventTone::violation) classes += " violation";
            if (step.tone == EventTone::protection) classes += " protection";
            out_ += fmt::format("<g class=\"{}\" id=\"{}-fig-e{}\"><a href=\"#{}-e{}\">", classes, escaped(anchor_),
                                step.number, escaped(anchor_), step.number);
            if (!step.retry)
                out_ += fmt::format(
                    "<text x=\"4\" y=\"{0:.1f}\" class=\"number\">e{1}</text>"
                    "<text x=\"{2:.0f}\" y=\"{0:.1f}\" class=\"time\" text-anchor=\"end\">{3}</text>",
                    y + 4, step.number, gutter - 8, format_seconds(step.at));
            if (step.is_message())
                arrow(step, y);
            else
                mark(step, y);
            out_ += "</a></g>\n";
            if (!step.explanation.empty()) caption(step, y, caption_x(step));
        }
    }

    void arrow(const FigureStep& step, double y) {
        if (step.in_flight) return stub(step, y);
        const double x1 = lane_x(step.lane);
        const double x2 = lane_x(*step.to_lane);
        const double y2 = std::max(axis_.y_at(step.arrives), y);
        const double inset = x2 > x1 ? -4 : 4;  // stop short of the lane line so the head shows
        const std::string colour =
            step.tone == EventTone::violation ? std::string(palette::violation) : colours_[step.lane];
        out_ += fmt::format("<title>e{} · {} → {} · sent {}, {} {}: {}</title>", step.number,
                            escaped(figure_.lanes[step.lane]), escaped(figure_.lanes[*step.to_lane]),
                            format_seconds(step.at), step.lost ? "lost" : "arrived", format_seconds(step.arrives),
                            escaped(step.text));
        out_ += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
            "stroke-width=\"{}\" marker-end=\"url(#{}-{})\"/>",
            x1, y, x2 + (step.lost ? 0 : inset), y2, colour, step.retry ? "0.6" : "1.3", escaped(anchor_),
            step.lost ? "lost" : "head");
        if (step.retry) return;
        const bool rightwards = x2 >= x1;
        std::string label = shortened(step.text, label_limit);
        if (!step.note.empty()) label += " (×" + step.note + ")";
        out_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\" text-anchor=\"{}\">{}</text>",
                            rightwards ? x1 + 6 : x1 - 6, y - 3, rightwards ? "start" : "end", escaped(label));
    }

    // A message still travelling when the run stopped: a dashed third of the way towards
    // its receiver, since where it would land is past the end of the figure.
    void stub(const FigureStep& step, double y) {
        const double x1 = lane_x(step.lane);
        const double x2 = x1 + (lane_x(*step.to_lane) - x1) / 3;
        out_ += fmt::format("<title>e{} · {} → {} · sent {}, still in flight when the run stopped: {}</title>",
                            step.number, escaped(figure_.lanes[step.lane]), escaped(figure_.lanes[*step.to_lane]),
                            format_seconds(step.at), escaped(step.text));
        out_ += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"1.3\" "
            "stroke-dasharray=\"4 3\"/>",
            x1, y, x2, y + 6, colours_[step.lane]);
        if (step.retry) return;
        const bool rightwards = x2 >= x1;
        out_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"label\" text-anchor=\"{}\">{}</text>",
                            rightwards ? x1 + 6 : x1 - 6, y - 3, rightwards ? "start" : "end",
                            escaped(shortened(step.text, label_limit) + " (in flight at the end)"));
    }

    void mark(const FigureStep& step, double y) {
        const double x = lane_x(step.lane);
        std::string_view colour = colours_[step.lane];
        std::string symbol;
        if (step.tone == EventTone::violation) {
            colour = palette::violation;
            symbol = "✗ ";
        } else if (step.tone == EventTone::protection) {
            colour = palette::protection;
            symbol = "✓ ";
        } else if (step.tone == EventTone::fault) {
            colour = palette::fault;
        }
        const double r = step.tone == EventTone::violation ? 6 : 3.5;
        out_ += fmt::format("<title>e{} · {} · {}</title><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"/>",
                            step.number, escaped(figure_.lanes[step.lane]), escaped(step.text), x, y, r, colour);
        out_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" class=\"text tone-{}\">{}{}</text>", x + 9, y + 4,
                            tone_name(step.tone), symbol, escaped(shortened(step.text, text_limit)));
    }

    void caption(const FigureStep& step, double y, double x) {
        out_ += fmt::format(
            "<g class=\"caption tone-{0}\"><a href=\"#{1}-e{2}\"><text x=\"{3:.1f}\" y=\"{4:.1f}\">"
            "<tspan class=\"caption-number\">e{2}</tspan> {5}</text></a></g>\n",
            tone_name(step.tone), escaped(anchor_), step.number, x, y + 4,
            escaped(shortened(step.explanation, caption_limit)));
    }

    const SequenceFigure& figure_;
    std::string anchor_;
    TimeAxis axis_;
    std::vector<std::string> colours_;
    std::string out_;
};

}  // namespace

std::string render_svg_figure(const SequenceFigure& figure, const std::string& anchor) {
    return SvgWriter(figure, anchor).render();
}

std::string render_svg_legend() {
    std::string out =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"legend\" width=\"820\" height=\"86\" viewBox=\"0 0 820 86\" "
        "role=\"img\" aria-label=\"Legend\">\n";
    out += fmt::format(
        "<line x1=\"10\" y1=\"14\" x2=\"80\" y2=\"22\" stroke=\"#0072B2\" stroke-width=\"1.3\"/>"
        "<text x=\"90\" y=\"22\">a message, from send to delivery (slope: delay)</text>"
        "<line x1=\"10\" y1=\"40\" x2=\"80\" y2=\"44\" stroke=\"#0072B2\" stroke-width=\"1.3\"/>"
        "<path d=\"M76,40 L84,48 M84,40 L76,48\" stroke=\"{0}\" stroke-width=\"2\"/>"
        "<text x=\"90\" y=\"46\">a message lost</text>"
        "<rect x=\"40\" y=\"56\" width=\"7\" height=\"24\" fill=\"#0072B2\" opacity=\"0.85\"/>"
        "<text x=\"90\" y=\"72\">the lease as its holder believed it</text>"
        "<rect x=\"440\" y=\"6\" width=\"7\" height=\"24\" fill=\"#0072B2\" opacity=\"0.85\"/>"
        "<rect x=\"440\" y=\"6\" width=\"7\" height=\"24\" fill=\"url(#legend-hatch)\"/>"
        "<text x=\"470\" y=\"22\">the lock as the store saw it (on the store's lane)</text>"
        "<rect x=\"424\" y=\"34\" width=\"40\" height=\"18\" fill=\"{2}\" opacity=\"0.22\"/>"
        "<text x=\"470\" y=\"47\">a pause, or a node down</text>"
        "<circle cx=\"444\" cy=\"68\" r=\"6\" fill=\"{0}\"/><text x=\"470\" y=\"72\" fill=\"{3}\">✗ a violation</text>"
        "<circle cx=\"580\" cy=\"68\" r=\"3.5\" fill=\"{1}\"/><text x=\"592\" y=\"72\" fill=\"{4}\">✓ a protection "
        "that worked</text>"
        "<defs><pattern id=\"legend-hatch\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"2.5\" height=\"5\" fill=\"white\" "
        "opacity=\"0.55\"/></pattern></defs>\n",
        palette::violation, palette::protection, palette::fault, palette::violation_text, palette::protection_text);
    out += "</svg>\n";
    return out;
}

}  // namespace locksim
