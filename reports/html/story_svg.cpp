#include "reports/html/story_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "reports/figure/time_axis.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/palette.hpp"
#include "reports/html/svg_parts.hpp"
#include "reports/text_style.hpp"
#include "reports/text_wrap.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// The step number and true time beside each row: "e120" and "46.001s" fit in 92 units;
// each character more (a long run's "e21027", "7881.000s") takes about 7.5 more.
constexpr double story_gutter = 92;
constexpr std::size_t gutter_chars = 11;
constexpr double gutter_char_width = 7.5;
constexpr double header_height = 40;
constexpr double column_gap = 14;
constexpr double column_width = 336;
// Characters per line in the column, by estimate for the stylesheet's sans-serif at 12px
// (bold sentences are wider): text is placed without knowing the reader's fonts.
constexpr std::size_t text_chars = 52;
constexpr std::size_t sentence_chars = 46;
constexpr std::size_t text_lines = 2;  // a step's own words; the checker's sentence is never cut
constexpr double line_height = 15;
constexpr Duration gap_shown = seconds(1);  // time between two rows worth a band
constexpr double band_height = 22;
constexpr Duration slow_message = milliseconds(100);  // its delay is worth saying

// Narrow enough that five to ten lanes and the column fit a page.
double story_lane_width(std::size_t lanes) {
    return std::clamp(380.0 / static_cast<double>(std::max<std::size_t>(lanes, 1)), 48.0, 72.0);
}

// "payment-provider" → {"payment-", "provider"}: a lane name on at most two lines of
// `chars`, split at the hyphen nearest the middle.
std::vector<std::string> name_lines(const std::string& name, std::size_t chars) {
    if (name.size() <= chars) return {name};
    std::size_t best = std::string::npos;
    for (std::size_t i = 0; i + 1 < name.size(); ++i)
        if ((name[i] == '-' || name[i] == '_' || name[i] == '.') &&
            (best == std::string::npos || std::abs(static_cast<long>(i) - static_cast<long>(name.size() / 2)) <
                                              std::abs(static_cast<long>(best) - static_cast<long>(name.size() / 2))))
            best = i;
    if (best == std::string::npos) return {shortened(name, chars - 1)};
    return {shortened(name.substr(0, best + 1), chars), shortened(name.substr(best + 1), chars)};
}

// A lane's name set narrower where the widest of its letters would cross its box: eight
// letters of "payment-" take about 50 px at 9.5 px semibold, and ten lanes leave each 44.
// The attributes that squeeze a line into `room` px, or none where it fits as it is.
std::string squeezed_to(const std::string& line, double room) {
    constexpr double widest_letter = 6.4;  // px, a semibold 9.5 px letter of a node's name
    const auto letters = static_cast<double>(display_width(line));
    if (letters * widest_letter <= room) return "";
    return fmt::format(" textLength=\"{:.1f}\" lengthAdjust=\"spacingAndGlyphs\"", room);
}

// What a row says: the step in words, then the checker's sentence.
struct RowText {
    std::vector<std::string> words;
    std::vector<std::string> sentence;
    std::size_t lines() const { return words.size() + sentence.size(); }
};

RowText row_text(const FigureStep& step, const SequenceFigure& figure) {
    std::string text;
    if (step.is_message()) {
        // What became of the message comes before its words, which a long message may cut:
        // a refused claim cut short must not read as a granted one.
        std::vector<std::string> fate;
        if (!step.note.empty()) fate.push_back(fmt::format("refused, and {}", step.note));
        if (step.stalled) fate.push_back("stalled, retransmitted");
        if (step.lost) fate.push_back("lost");
        if (step.in_flight) fate.push_back("still in flight when the run stopped");
        if (!step.lost && !step.in_flight && step.arrives - step.at >= slow_message)
            fate.push_back(fmt::format("arrived {} later", format_duration_rounded(step.arrives - step.at)));
        text = fmt::format("{} → {}{}: {}", figure.lanes[step.lane], figure.lanes[*step.to_lane],
                           fate.empty() ? "" : fmt::format(", {}", fmt::join(fate, ", ")), step.text);
    } else {
        text = fmt::format("{}: {}", figure.lanes[step.lane], step.text);
    }
    RowText row;
    row.words = wrapped_lines(text, text_chars);
    if (row.words.size() > text_lines) {
        row.words.resize(text_lines);
        row.words.back() = shortened(row.words.back(), text_chars - 1);
        if (row.words.back().size() < 3 || row.words.back().substr(row.words.back().size() - 3) != "…")
            row.words.back() += "…";
    }
    if (!step.explanation.empty()) {
        const std::string_view mark = step.tone == EventTone::violation    ? "✗ "
                                      : step.tone == EventTone::protection ? "✓ "
                                                                           : "";
        row.sentence = wrapped_lines(fmt::format("{}{}", mark, step.explanation), sentence_chars);
    }
    return row;
}

double gutter_for(const SequenceFigure& figure) {
    std::size_t widest = 0;
    for (const auto& step : figure.steps)
        widest = std::max(widest, fmt::format("e{}", step.number).size() + format_seconds(step.at).size());
    return story_gutter + gutter_char_width * static_cast<double>(widest > gutter_chars ? widest - gutter_chars : 0);
}

class StoryWriter {
public:
    StoryWriter(const StoryFigure& story, std::string anchor, std::string steps_page)
        : figure_(story.figure),
          anchor_(std::move(anchor)),
          steps_page_(std::move(steps_page)),
          gutter_(gutter_for(figure_)),
          lane_width_(story_lane_width(figure_.lanes.size())),
          column_x_(gutter_ + lane_width_ * static_cast<double>(figure_.lanes.size()) + column_gap),
          width_(column_x_ + column_width),
          colours_(lane_colours(figure_)) {
        lay_out_rows();
    }

    std::string render() {
        std::string out = fmt::format("<div class=\"story\" style=\"max-width:{:.0f}px\">\n", width_ * 1.25);
        out += lane_header();
        const double height = bottom_ + 12;
        out += fmt::format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"figure story\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
            "role=\"img\" aria-labelledby=\"{2}-story-title\">\n"
            "<title id=\"{2}-story-title\">The story: {3} steps on {4} lanes, in time order</title>\n",
            width_, height, escaped(anchor_), figure_.steps.size(), figure_.lanes.size());
        out += svg_definitions(anchor_ + "-story");
        for (std::size_t lane = 0; lane < figure_.lanes.size(); ++lane)
            out += fmt::format(
                "<line x1=\"{0:.1f}\" y1=\"0\" x2=\"{0:.1f}\" y2=\"{1:.1f}\" stroke=\"{2}\" stroke-width=\"1.2\" "
                "opacity=\"0.55\"/>\n",
                lane_x(lane), height, colours_[lane]);
        out += bands();
        out += spans();
        for (std::size_t i = 0; i < figure_.steps.size(); ++i) out += row(i);
        out += "</svg>\n</div>\n";
        return out;
    }

private:
    double lane_x(std::size_t lane) const { return gutter_ + lane_width_ * (static_cast<double>(lane) + 0.5); }

    void lay_out_rows() {
        double top = 6;
        for (std::size_t i = 0; i < figure_.steps.size(); ++i) {
            const FigureStep& step = figure_.steps[i];
            if (i > 0 && step.at - figure_.steps[i - 1].at >= gap_shown) {
                gaps_.push_back(Gap{top, figure_.steps[i - 1].at, step.at});
                top += band_height;
            }
            texts_.push_back(row_text(step, figure_));
            marks_.push_back(top + 11);
            top += 6 + line_height * static_cast<double>(std::max<std::size_t>(texts_.back().lines(), 1));
        }
        bottom_ = top;
    }

    // Any instant: the first row at it, else between the rows around it in proportion.
    double y_at(Instant at) const {
        const auto& steps = figure_.steps;
        if (steps.empty()) return 0;
        const auto after = std::lower_bound(steps.begin(), steps.end(), at,
                                            [](const FigureStep& step, Instant t) { return step.at < t; });
        const auto index = static_cast<std::size_t>(after - steps.begin());
        if (index < steps.size() && steps[index].at == at) return marks_[index];
        if (index == 0) return marks_[0];
        const Instant from = steps[index - 1].at;
        const double y_from = marks_[index - 1];
        const Instant to = index < steps.size() ? steps[index].at : std::max(figure_.end, from);
        const double y_to = index < steps.size() ? marks_[index] : bottom_;
        if (to <= from) return y_from;
        return y_from + (y_to - y_from) * in_seconds(at - from) / in_seconds(to - from);
    }

    std::string lane_header() const {
        const auto chars = static_cast<std::size_t>((lane_width_ - 4) / 5.5);  // at 9.5px, bold
        std::string out = fmt::format(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"story-lanes\" viewBox=\"0 0 {:.0f} {:.0f}\" "
            "aria-hidden=\"true\">\n",
            width_, header_height);
        for (std::size_t lane = 0; lane < figure_.lanes.size(); ++lane) {
            const double x = lane_x(lane);
            const auto lines = name_lines(figure_.lanes[lane], chars);
            out += fmt::format(
                "<g class=\"lane\" data-node=\"{}\"><title>{}</title><rect x=\"{:.1f}\" y=\"3\" width=\"{:.1f}\" "
                "height=\"34\" rx=\"4\" fill=\"{}\"/>",
                escaped(figure_.lanes[lane]), escaped(figure_.lanes[lane]), x - lane_width_ / 2 + 2, lane_width_ - 4,
                colours_[lane]);
            for (std::size_t k = 0; k < lines.size(); ++k)
                out += fmt::format(
                    "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"lane-name\" "
                    "fill=\"{}\"{}>{}</text>",
                    x, lines.size() == 1 ? 24.0 : 17.0 + 13.0 * static_cast<double>(k),
                    palette::text_on(colours_[lane]), squeezed_to(lines[k], lane_width_ - 8), escaped(lines[k]));
            out += "</g>\n";
        }
        out += fmt::format("<text x=\"4\" y=\"24\" class=\"time\">step, time</text>\n");
        return out + "</svg>\n";
    }

    std::string bands() const {
        std::string out;
        for (const auto& gap : gaps_)
            out += fmt::format(
                "<g class=\"break\"><rect x=\"0\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.1f}\" fill=\"#f6f8fa\"/>"
                "<text x=\"4\" y=\"{:.1f}\" class=\"break-label\">{} later</text></g>\n",
                gap.top, width_, band_height, gap.top + 15, escaped(format_duration_rounded(gap.to - gap.from)));
        return out;
    }

    std::string spans() const {
        std::string out;
        std::map<std::size_t, std::vector<std::size_t>> holders_on_lane;  // granted bars: a column per holder
        for (const auto& span : figure_.spans) {
            const double top = y_at(span.from);
            const double height = std::max(y_at(span.to) - top, 2.0);
            const double x = lane_x(span.lane);
            switch (span.kind) {
                case FigureSpan::Kind::believed:
                    out += svg_bar("believed", x - 11, top, 5, height, colours_[span.holder], "", span_tip(span));
                    break;
                case FigureSpan::Kind::granted: {
                    auto& column = holders_on_lane[span.lane];
                    auto at = std::find(column.begin(), column.end(), span.holder);
                    if (at == column.end()) at = column.insert(column.end(), span.holder);
                    const double offset = 5 + 6 * static_cast<double>((at - column.begin()) % 3);
                    out += svg_bar("granted", x + offset, top, 5, height, colours_[span.holder],
                                   fmt::format("url(#{}-story-hatch)", escaped(anchor_)), span_tip(span));
                    break;
                }
                case FigureSpan::Kind::paused:
                case FigureSpan::Kind::down:
                    out += fmt::format(
                        "<g class=\"{}\"><title>{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"24\" "
                        "height=\"{:.1f}\" fill=\"{}\" opacity=\"0.22\"/></g>\n",
                        span.kind == FigureSpan::Kind::down ? "down" : "pause", escaped(span_tip(span)), x - 12, top,
                        height, palette::fault);
                    break;
                case FigureSpan::Kind::cut_off: out += cut_off_band(span_tip(span), x - 12, top, 24, height); break;
            }
        }
        return out;
    }

    // The steps of the messages its sentence names, for a reader (and the layout test) to
    // find: ` data-cites="e12 e15"`. A message the story did not keep is named by its trace
    // event, "t340", which names no step.
    std::string cites_attribute(const FigureStep& step) const {
        if (step.cites.empty()) return "";
        std::vector<std::string> named;
        for (const std::uint64_t cited : step.cites) {
            const auto found = std::find_if(figure_.steps.begin(), figure_.steps.end(),
                                            [cited](const FigureStep& s) { return s.sequence == cited; });
            named.push_back(found == figure_.steps.end() ? fmt::format("t{}", cited)
                                                         : fmt::format("e{}", found->number));
        }
        return fmt::format(" data-cites=\"{}\"", fmt::join(named, " "));
    }

    std::string row(std::size_t i) const {
        const FigureStep& step = figure_.steps[i];
        const double y = marks_[i];
        std::string classes = step.is_message() ? "step message" : "step event";
        if (step.tone != EventTone::normal) classes += fmt::format(" {}", tone_name(step.tone));
        std::string out =
            fmt::format("<g class=\"{}\" id=\"{}-story-e{}\"{}><a href=\"{}#{}-e{}\">", classes, escaped(anchor_),
                        step.number, cites_attribute(step), escaped(steps_page_), escaped(anchor_), step.number);
        out += fmt::format(
            "<text x=\"4\" y=\"{0:.1f}\" class=\"number\">e{1}</text>"
            "<text x=\"{2:.0f}\" y=\"{0:.1f}\" class=\"time\" text-anchor=\"end\">{3}</text>",
            y + 4, step.number, gutter_ - 8, format_seconds(step.at));
        out += step.is_message() ? arrow(step, y) : mark(step, y);
        const RowText& text = texts_[i];
        double line_y = y + 4;
        for (const auto& line : text.words) {
            out += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\" class=\"words\">{}</text>", column_x_, line_y,
                               escaped(line));
            line_y += line_height;
        }
        if (!text.sentence.empty()) {
            out += fmt::format("<g class=\"caption tone-{}\">", tone_name(step.tone));
            for (const auto& line : text.sentence) {
                out += fmt::format("<text x=\"{:.0f}\" y=\"{:.1f}\">{}</text>", column_x_, line_y, escaped(line));
                line_y += line_height;
            }
            out += "</g>";
        }
        return out + "</a></g>\n";
    }

    std::string arrow(const FigureStep& step, double y) const {
        const double x1 = lane_x(step.lane);
        const double x2 = lane_x(*step.to_lane);
        const std::string colour =
            step.tone == EventTone::violation ? std::string(palette::violation) : colours_[step.lane];
        if (step.in_flight)
            return fmt::format(
                "<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-dasharray=\"4 "
                "3\"/>",
                x1, y, x1 + (x2 - x1) / 3, y + 4, colour);
        const double y2 = std::max(y_at(step.arrives), y);
        const double inset = step.lost ? 0 : (x2 > x1 ? -3 : 3);  // stop short of the lane so the head shows
        return fmt::format(
            "<line x1=\"{:.0f}\" y1=\"{:.1f}\" x2=\"{:.0f}\" y2=\"{:.1f}\" stroke=\"{}\" "
            "marker-end=\"url(#{}-story-{})\"/>",
            x1, y, x2 + inset, y2, colour, escaped(anchor_), step.lost ? "lost" : "head");
    }

    std::string mark(const FigureStep& step, double y) const {
        std::string_view colour = colours_[step.lane];
        if (step.tone == EventTone::violation) colour = palette::violation;
        if (step.tone == EventTone::protection) colour = palette::protection;
        if (step.tone == EventTone::fault) colour = palette::fault;
        return fmt::format("<circle cx=\"{:.0f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"/>", lane_x(step.lane), y,
                           step.tone == EventTone::violation ? 6 : 4, colour);
    }

    struct Gap {
        double top = 0;
        Instant from;
        Instant to;
    };

    const SequenceFigure& figure_;
    std::string anchor_;
    std::string steps_page_;
    double gutter_;
    double lane_width_;
    double column_x_;
    double width_;
    std::vector<std::string> colours_;
    std::vector<RowText> texts_;
    std::vector<double> marks_;  // per row: the y of its mark
    std::vector<Gap> gaps_;
    double bottom_ = 0;
};

}  // namespace

std::string render_story_svg(const StoryFigure& story, const std::string& anchor, const std::string& steps_page) {
    return StoryWriter(story, anchor, steps_page).render();
}

std::string render_story_legend() {
    return fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"legend\" viewBox=\"0 0 760 134\" role=\"img\" "
        "aria-label=\"Legend\">\n"
        "<line x1=\"10\" y1=\"14\" x2=\"70\" y2=\"18\" stroke=\"#0072B2\" stroke-width=\"1.3\"/>"
        "<path d=\"M64,14 L72,18 L64,22 z\" fill=\"#0072B2\"/>"
        "<text x=\"84\" y=\"20\">a message, to the row of its arrival</text>"
        "<line x1=\"10\" y1=\"42\" x2=\"70\" y2=\"42\" stroke=\"#0072B2\" stroke-width=\"1.3\"/>"
        "<path d=\"M66,38 L74,46 M74,38 L66,46\" stroke=\"{0}\" stroke-width=\"2\"/>"
        "<text x=\"84\" y=\"46\">a message lost where it was cut off</text>"
        "<rect x=\"38\" y=\"58\" width=\"5\" height=\"22\" fill=\"#0072B2\" opacity=\"0.85\"/>"
        "<text x=\"84\" y=\"74\">the lease as its holder believed it</text>"
        "<rect x=\"38\" y=\"84\" width=\"5\" height=\"22\" fill=\"#0072B2\" opacity=\"0.85\"/>"
        "<rect x=\"38\" y=\"84\" width=\"5\" height=\"22\" fill=\"url(#story-legend-hatch)\"/>"
        "<text x=\"84\" y=\"100\">hatched: the lock as the store saw it</text>"
        "<rect x=\"28\" y=\"110\" width=\"24\" height=\"20\" fill=\"{2}\" fill-opacity=\"0.1\" stroke=\"{2}\" "
        "stroke-dasharray=\"4 3\"/><text x=\"84\" y=\"126\">dashed: a node cut off by a partition</text>"
        "<rect x=\"410\" y=\"6\" width=\"24\" height=\"20\" fill=\"{2}\" opacity=\"0.22\"/>"
        "<text x=\"450\" y=\"20\">a pause, or a node down</text>"
        "<rect x=\"410\" y=\"32\" width=\"24\" height=\"20\" fill=\"#f6f8fa\" stroke=\"#d0d7de\"/>"
        "<text x=\"450\" y=\"46\">time passing between two rows</text>"
        "<circle cx=\"422\" cy=\"69\" r=\"6\" fill=\"{0}\"/><text x=\"450\" y=\"74\" fill=\"{3}\">✗ a violation</text>"
        "<circle cx=\"422\" cy=\"95\" r=\"4\" fill=\"{1}\"/><text x=\"450\" y=\"100\" fill=\"{4}\">✓ a protection that "
        "worked</text>"
        "<defs><pattern id=\"story-legend-hatch\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"2.5\" height=\"5\" fill=\"white\" "
        "opacity=\"0.55\"/></pattern></defs>\n</svg>\n",
        palette::violation, palette::protection, palette::fault, palette::violation_text, palette::protection_text);
}

}  // namespace locksim
