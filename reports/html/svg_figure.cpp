#include "reports/html/svg_figure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/figure/time_axis.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/palette.hpp"
#include "reports/html/svg_parts.hpp"
#include "reports/text_wrap.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// The figure is wider than most screens: it scrolls in a frame of its own, the lane names
// in a strip of their own that stays at the frame's top. Text is placed by estimate, wide
// enough for most fonts at the sizes the stylesheet sets, so nothing depends on the fonts a
// reader has: the number (10px) and time (11px) are monospace.
constexpr double number_char = 6.3;
constexpr double time_char = 6.9;
constexpr double header = 40;  // the strip of lane names
constexpr double top_margin = 18;
constexpr double words_gap = 14;
// The column of words beside the lanes: each step on a line or two (the table has all of
// it), then the checker's sentence, wrapped and never cut.
constexpr std::size_t words_chars = 62;
constexpr std::size_t words_lines = 2;
constexpr std::size_t why_chars = 56;
constexpr double words_width = 440;
constexpr double words_line = 15;

// Room on the left for the widest "e1000" and "7881.000s", apart.
double gutter_width(const SequenceFigure& figure) {
    std::size_t number = 0, time = 0;
    for (const auto& step : figure.steps) {
        number = std::max(number, fmt::formatted_size("e{}", step.number));
        time = std::max(time, format_seconds(step.at).size());
    }
    return 4 + number_char * static_cast<double>(number) + 10 + time_char * static_cast<double>(time) + 8;
}

// A lane holds a lease bar on its left, up to three of the store's bars on its right, and its
// name in the strip above in two lines of `name_chars`.
constexpr double lane_width = 84;
constexpr std::size_t name_chars = 11;

// "payment-provider" → {"payment-", "provider"}: a name broken after a hyphen, dot or
// underscore onto two lines at most; what still does not fit is cut (the tooltip has it).
std::vector<std::string> lane_name_lines(const std::string& name) {
    std::string breakable;
    for (const char c : name) breakable += (c == '-' || c == '.' || c == '_') ? std::string{c, ' '} : std::string{c};
    std::vector<std::string> lines = wrapped_lines(breakable, name_chars);
    for (auto& line : lines)
        for (std::size_t at; (at = line.find("- ")) != std::string::npos ||
                             (at = line.find(". ")) != std::string::npos ||
                             (at = line.find("_ ")) != std::string::npos;)
            line.erase(at + 1, 1);
    if (lines.size() > 2) {
        for (std::size_t i = 2; i < lines.size(); ++i) lines[1] += lines[i];
        lines.resize(2);
    }
    for (auto& line : lines) line = shortened(line, name_chars);
    return lines;
}

// A step's row in the column: what happened, then the checker's sentence.
struct StepWords {
    std::vector<std::string> what;
    std::vector<std::string> why;
    double height() const {
        return 3 + words_line * static_cast<double>(std::max<std::size_t>(1, what.size() + why.size()));
    }
};

// A step in words: who did what, or who sent what to whom, and in brackets what else a
// reader needs (refused retries, a lost message, how long a pause lasted: `lasting`).
std::string step_in_words(const FigureStep& step, const SequenceFigure& figure, const std::string& lasting) {
    const std::string_view mark = step.tone == EventTone::violation    ? "✗ "
                                  : step.tone == EventTone::protection ? "✓ "
                                                                       : "";
    std::string text = step.is_message() ? fmt::format("{}{} → {}: {}", mark, figure.lanes[step.lane],
                                                       figure.lanes[*step.to_lane], step.text)
                                         : fmt::format("{}{}: {}", mark, figure.lanes[step.lane], step.text);
    const std::pair<bool, std::string> asides[] = {{!step.note.empty(), "refused; " + step.note},
                                                   {step.stalled, "stalled, retransmitted"},
                                                   {step.lost, "lost"},
                                                   {step.in_flight, "in flight at the end"},
                                                   {!lasting.empty(), lasting}};
    for (const auto& [said, aside] : asides)
        if (said) text += fmt::format(" ({})", aside);
    return text;
}

StepWords words_of(const FigureStep& step, const SequenceFigure& figure, const std::string& lasting) {
    StepWords words{wrapped_lines(step_in_words(step, figure, lasting), words_chars), {}};
    if (words.what.size() > words_lines) {  // cut the rest short: the table row has it whole
        words.what[words_lines - 1] =
            shortened(words.what[words_lines - 1] + " " + words.what[words_lines], words_chars);
        words.what.resize(words_lines);
    }
    if (!step.explanation.empty()) words.why = wrapped_lines(step.explanation, why_chars);
    return words;
}

// How long a pause or a downtime lasted is said beside the step that began it, unless
// that step's words say it already ("frozen for 40s"): no label among the lanes' arrows.
std::vector<StepWords> all_words(const SequenceFigure& figure) {
    std::map<std::uint64_t, const FigureSpan*> began;  // by the trace event that began it
    for (const auto& span : figure.spans)
        if (span.kind == FigureSpan::Kind::paused || span.kind == FigureSpan::Kind::down) began[span.opened_by] = &span;
    std::vector<StepWords> all;
    for (const auto& step : figure.steps) {
        std::string lasting;
        if (const auto found = began.find(step.sequence); found != began.end()) {
            const FigureSpan& span = *found->second;
            const std::string how_long = format_duration_rounded(span.to - span.from);
            if (step.text.find(how_long) == std::string::npos)
                lasting = fmt::format("{} {}{}", span.kind == FigureSpan::Kind::down ? "down" : "paused", how_long,
                                      span.open ? ", still when the run stopped" : "");
        }
        all.push_back(words_of(step, figure, lasting));
    }
    return all;
}

std::vector<double> row_heights(const std::vector<StepWords>& words) {
    std::vector<double> rows;
    for (const auto& w : words) rows.push_back(w.height());
    return rows;
}

class SvgWriter {
public:
    SvgWriter(const SequenceFigure& figure, std::string anchor)
        : figure_(figure),
          anchor_(std::move(anchor)),
          words_(all_words(figure)),
          axis_(figure, TimeAxis::Settings{.top = top_margin, .rows = row_heights(words_)}),
          colours_(lane_colours(figure)),
          gutter_(gutter_width(figure)),
          column_x_(gutter_ + lane_width * static_cast<double>(figure.lanes.size()) + words_gap),
          width_(column_x_ + words_width) {}

    std::string render() {
        const double height = axis_.bottom() + 30;
        out_ +=
            "<div class=\"figure-frame\" tabindex=\"0\" role=\"region\" aria-label=\"The full figure: it scrolls "
            "here, the lane names stay at the top\">\n";
        lane_names();
        out_ += fmt::format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
            "viewBox=\"0 0 {0:.0f} {1:.0f}\" role=\"img\" aria-labelledby=\"{2}-title\">\n"
            "<title id=\"{2}-title\">Sequence figure: {3} nodes, {4} steps, time running down</title>\n",
            width_, height, escaped(anchor_), figure_.lanes.size(), figure_.steps.size());
        out_ += svg_definitions(anchor_);
        for (std::size_t lane = 0; lane < figure_.lanes.size(); ++lane)
            out_ += fmt::format(
                "<line x1=\"{0:.1f}\" y1=\"0\" x2=\"{0:.1f}\" y2=\"{1:.1f}\" stroke=\"{2}\" stroke-width=\"1.2\" "
                "opacity=\"0.55\"/>\n",
                lane_x(lane), height - 20, colours_[lane]);
        spans();
        breaks();
        steps();
        out_ += "</svg>\n</div>\n";
        return std::move(out_);
    }

private:
    double lane_x(std::size_t lane) const { return gutter_ + lane_width * (static_cast<double>(lane) + 0.5); }

    // The lane names, in a strip that stays at the top of the frame as it scrolls down.
    void lane_names() {
        out_ += fmt::format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure-lanes\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
            "viewBox=\"0 0 {0:.0f} {1:.0f}\" aria-hidden=\"true\">\n<text x=\"4\" y=\"24\" class=\"time\">step, "
            "time</text>\n",
            width_, header);
        for (std::size_t lane = 0; lane < figure_.lanes.size(); ++lane) {
            const double x = lane_x(lane);
            out_ += fmt::format(
                "<g class=\"lane\" data-node=\"{0}\"><title>{0}</title><rect x=\"{1:.1f}\" y=\"4\" width=\"{2:.1f}\" "
                "height=\"32\" rx=\"5\" fill=\"{3}\"/>",
                escaped(figure_.lanes[lane]), x - lane_width / 2 + 3, lane_width - 6, colours_[lane]);
            // One line in the middle of the box, or two, a line apart.
            const auto lines = lane_name_lines(figure_.lanes[lane]);
            std::string name;
            for (const auto& line : lines)
                name +=
                    fmt::format("<tspan x=\"{:.1f}\" dy=\"{}\">{}</tspan>", x, name.empty() ? 0 : 13, escaped(line));
            out_ += fmt::format("<text y=\"{}\" text-anchor=\"middle\" class=\"lane-name\" fill=\"{}\">{}</text>",
                                lines.size() == 1 ? 24 : 17, palette::text_on(colours_[lane]), name);
            out_ += "</g>\n";
        }
        out_ += fmt::format("<text x=\"{:.0f}\" y=\"24\" class=\"time\">what happened, and why it matters</text>\n",
                            column_x_);
        out_ += "</svg>\n";
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
                    const double offset = 8 + 9 * static_cast<double>((at - column.begin()) % 3);
                    out_ += svg_bar("granted", x + offset, top, 7, bottom - top, colours_[span.holder],
                                    fmt::format("url(#{}-hatch)", escaped(anchor_)), tip);
                    break;
                }
                case FigureSpan::Kind::paused:
                case FigureSpan::Kind::down: {
                    const bool down = span.kind == FigureSpan::Kind::down;
                    // How long it lasted is said in words beside the step that began it.
                    out_ += fmt::format(
                        "<g class=\"{}\"><title>{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"40\" "
                        "height=\"{:.1f}\" fill=\"{}\" opacity=\"0.22\"/></g>\n",
                        down ? "down" : "pause", escaped(tip), x - 20, top, bottom - top, palette::fault);
                    break;
                }
                case FigureSpan::Kind::cut_off: out_ += cut_off_band(tip, x - 20, top, 40, bottom - top); break;
            }
        }
    }

    // A zig-zag across the figure where an idle stretch was cut, and how long it was.
    void breaks() {
        for (const auto& cut : axis_.breaks()) {
            const double middle = (cut.top + cut.bottom) / 2;
            std::string zigzag;
            for (double x = 4; x < width_ - 4; x += 12)
                zigzag += fmt::format("{}{:.0f},{:.1f} ", zigzag.empty() ? "M" : "L", x,
                                      middle + (static_cast<int>(x / 12) % 2 == 0 ? -4.0 : 4.0));
            out_ += fmt::format(
                "<g class=\"break\"><rect x=\"0\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.1f}\" "
                "fill=\"#f6f8fa\"/><path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.2\"/>"
                "<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"break-label\">{} later</text></g>\n",
                cut.top, width_, cut.bottom - cut.top, zigzag, palette::faint, 8.0, middle - 6,
                escaped(format_duration_rounded(cut.to - cut.from)));
        }
    }

    // Each step on its own row: its number and true time on the left, its arrow or mark in
    // the lanes, its words in the column on the right; no text is drawn among the arrows.
    void steps() {
        for (std::size_t i = 0; i < figure_.steps.size(); ++i) {
            const FigureStep& step = figure_.steps[i];
            const double y = axis_.step_y(i);
            std::string classes = step.is_message() ? "step message" : "step event";
            if (step.retry) classes += " retry";
            if (!step.related) classes += " faded";
            if (step.tone == EventTone::violation) classes += " violation";
            if (step.tone == EventTone::protection) classes += " protection";
            out_ += fmt::format(
                "<g class=\"{0}\" id=\"{1}-fig-e{2}\"><a href=\"#{1}-e{2}\">"
                "<text x=\"4\" y=\"{3:.1f}\" class=\"number\">e{2}</text>"
                "<text x=\"{4:.0f}\" y=\"{3:.1f}\" class=\"time\" text-anchor=\"end\">{5}</text>",
                classes, escaped(anchor_), step.number, y + 4, gutter_ - 8, format_seconds(step.at));
            if (step.is_message())
                arrow(step, y);
            else
                mark(step, y);
            column(step, words_[i], y);
            out_ += "</a></g>\n";
        }
    }

    // The tooltip has the message whole, and when it was sent and arrived.
    void arrow(const FigureStep& step, double y) {
        const double x1 = lane_x(step.lane);
        const double x2 = lane_x(*step.to_lane);
        const std::string colour =
            step.tone == EventTone::violation ? std::string(palette::violation) : colours_[step.lane];
        const std::string fate =
            std::string(step.stalled ? "stalled on its stream, " : "") +
            (step.in_flight ? std::string("still in flight when the run stopped")
                            : fmt::format("{} {}", step.lost ? "lost" : "arrived", format_seconds(step.arrives)));
        out_ += fmt::format("<title>e{} · {} → {} · sent {}, {}: {}</title>", step.number,
                            escaped(figure_.lanes[step.lane]), escaped(figure_.lanes[*step.to_lane]),
                            format_seconds(step.at), fate, escaped(step.text));
        // Still travelling when the run stopped: a dashed third of the way towards its
        // receiver, since where it would land is past the end of the figure.
        if (step.in_flight) {
            out_ += fmt::format(
                "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"1.3\" "
                "stroke-dasharray=\"4 3\"/>",
                x1, y, x1 + (x2 - x1) / 3, y + 6, colour);
            return;
        }
        const double y2 = std::max(axis_.y_at(step.arrives), y);
        const double inset = step.lost ? 0 : (x2 > x1 ? -4 : 4);  // stop short of the lane line so the head shows
        out_ += fmt::format(
            "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"{}\" "
            "marker-end=\"url(#{}-{})\"/>",
            x1, y, x2 + inset, y2, colour, step.retry ? "0.6" : "1.3", escaped(anchor_), step.lost ? "lost" : "head");
    }

    void mark(const FigureStep& step, double y) {
        std::string_view colour = colours_[step.lane];
        if (step.tone == EventTone::violation) colour = palette::violation;
        if (step.tone == EventTone::protection) colour = palette::protection;
        if (step.tone == EventTone::fault) colour = palette::fault;
        out_ += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"/>", lane_x(step.lane), y,
                            step.tone == EventTone::violation ? 6 : 3.5, colour);
    }

    // The step in words, a message in the monospace of its operation; under it the
    // checker's sentence, whole.
    void column(const FigureStep& step, const StepWords& words, double y) {
        const std::string kind = step.is_message() ? "label" : fmt::format("text tone-{}", tone_name(step.tone));
        double line_y = y + 4;
        for (const auto& line : words.what) {
            out_ += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"{}\">{}</text>", column_x_, line_y, kind,
                                escaped(line));
            line_y += words_line;
        }
        if (words.why.empty()) return;
        out_ += fmt::format("<g class=\"caption tone-{}\">", tone_name(step.tone));
        for (const auto& line : words.why) {
            out_ += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\">{}</text>", column_x_, line_y, escaped(line));
            line_y += words_line;
        }
        out_ += "</g>";
    }

    const SequenceFigure& figure_;
    std::string anchor_;
    std::vector<StepWords> words_;  // per step
    TimeAxis axis_;
    std::vector<std::string> colours_;
    double gutter_;
    double column_x_;
    double width_;
    std::string out_;
};

}  // namespace

std::string render_svg_figure(const SequenceFigure& figure, const std::string& anchor) {
    return SvgWriter(figure, anchor).render();
}

std::string render_svg_legend() {
    std::string out =
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"legend\" width=\"820\" height=\"112\" viewBox=\"0 0 820 "
        "112\" "
        "role=\"img\" aria-label=\"Legend\">\n";
    out += fmt::format(
        "<line x1=\"10\" y1=\"14\" x2=\"80\" y2=\"22\" stroke=\"#0072B2\" stroke-width=\"1.3\"/>"
        "<text x=\"90\" y=\"22\">a message, from send to delivery (slope: delay)</text>"
        "<line x1=\"10\" y1=\"40\" x2=\"80\" y2=\"44\" stroke=\"#0072B2\" stroke-width=\"1.3\"/>"
        "<path d=\"M76,40 L84,48 M84,40 L76,48\" stroke=\"{0}\" stroke-width=\"2\"/>"
        "<text x=\"90\" y=\"46\">a message lost</text>"
        "<rect x=\"40\" y=\"56\" width=\"7\" height=\"24\" fill=\"#0072B2\" opacity=\"0.85\"/>"
        "<text x=\"90\" y=\"72\">the lease as its holder believed it</text>"
        "<rect x=\"24\" y=\"86\" width=\"40\" height=\"18\" fill=\"{2}\" fill-opacity=\"0.1\" stroke=\"{2}\" "
        "stroke-dasharray=\"4 3\"/><text x=\"90\" y=\"99\">dashed: a node cut off by a partition</text>"
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
