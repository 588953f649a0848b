#include "reports/html/designs_strip.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "models/vocabulary.hpp"
#include "reports/event_text.hpp"
#include "reports/figure/divergence.hpp"
#include "reports/figure/time_axis.hpp"
#include "reports/html/markup.hpp"
#include "reports/html/palette.hpp"
#include "reports/html/svg_parts.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

constexpr std::size_t most_designs = 4;
constexpr double strip_width = 900;
constexpr double names_width = 150;
constexpr double axis_right = strip_width - 20;
constexpr double strip_row_height = 34;
constexpr double axis_height = 26;
// A design's name keeps clear of a mark at 0 s (6 px wide): 17 characters and a "…" at
// 7.2 px each, the widest of the page's semibold 12 px, end before it.
constexpr std::size_t strip_name_chars = 17;
// Who got the lock, under its tick: 10 px type, about 6 px a character.
constexpr std::size_t holder_name_chars = 12;
constexpr double holder_name_width = 6;

// A step worth a mark of its own on the strip: a verdict or a fault. The lock changing
// hands is a tick named for who got it (holder_ticks).
bool marked(const FigureStep& step) {
    return step.tone != EventTone::normal || !step.explanation.empty();
}

// Where each holder came to believe it held the lock: a grey tick, and the holder's name
// under it where the name fits clear of the one before.
template <class XOf>
std::string holder_ticks(const SequenceFigure& figure, const std::string& anchor, const XOf& x_of, double y) {
    std::string out;
    double clear_from = 0;  // where the last name drawn on this row ends
    for (const auto& span : figure.spans) {
        if (span.kind != FigureSpan::Kind::believed) continue;
        const std::string& holder = figure.lanes[span.holder];
        const double x = x_of(span.from);
        const auto step = std::find_if(figure.steps.begin(), figure.steps.end(),
                                       [&](const FigureStep& s) { return s.sequence == span.opened_by; });
        const std::string tip = fmt::format("{} got the lock at {}{}", holder, format_seconds(span.from),
                                            step == figure.steps.end() ? "" : fmt::format(" (e{})", step->number));
        std::string tick = fmt::format(
            "<title>{}</title><line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
            "stroke-width=\"2\"/>",
            escaped(tip), x, y - 6, x, y + 6, palette::service);
        const std::string name = shortened(holder, holder_name_chars);
        const double half = holder_name_width * static_cast<double>(name.size()) / 2;
        if (x - half >= clear_from) {
            tick += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" class=\"holder\">{}</text>", x,
                                y + 16, escaped(name));
            clear_from = x + half + 4;
        }
        out += step == figure.steps.end()
                   ? fmt::format("<g class=\"holder-tick\">{}</g>\n", tick)
                   : fmt::format("<g class=\"holder-tick\"><a href=\"#{}-story-e{}\">{}</a></g>\n", escaped(anchor),
                                 step->number, tick);
    }
    return out;
}

// 1, 2 or 5 times a power of ten, so that about six ticks span `span` seconds.
double tick_step(double span) {
    const double raw = std::max(span / 6, 1e-6);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double factor : {1.0, 2.0, 5.0})
        if (raw <= factor * power) return factor * power;
    return 10 * power;
}

// What happened at a divergence in one design: "billing-db: refuses token 33's write".
std::string what_happened(const TraceEvent* event, const Trace& trace) {
    if (event == nullptr) return "nothing more happened";
    const auto text = describe_event(*event, trace);
    return fmt::format("{} {}", trace.node_name(event->node), text ? text->text : std::string(event->kind));
}

}  // namespace

std::string render_designs_strip(const ScenarioOutcome& outcome, const std::vector<StoryFigure>& stories,
                                 const std::vector<std::string>& anchors) {
    const std::size_t count = outcome.designs.size();
    if (count < 2 || count > most_designs) return "";
    Instant last{};
    for (const auto& story : stories) {
        for (const auto& step : story.figure.steps)
            if (marked(step)) last = std::max(last, step.at);
        for (const auto& span : story.figure.spans)
            if (span.kind == FigureSpan::Kind::believed) last = std::max(last, span.from);
        for (const auto& band : story.figure.spans)
            if (is_fault_span(band)) last = std::max(last, band.to);
    }
    const double span = std::max(in_seconds(last - Instant{}) * 1.04, 0.001);
    const auto x_of = [&](Instant at) {
        return names_width + (axis_right - names_width) * std::min(in_seconds(at - Instant{}) / span, 1.0);
    };
    const double height = axis_height + strip_row_height * static_cast<double>(count) + 8;
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"strip\" viewBox=\"0 0 {:.0f} {:.0f}\" role=\"img\" "
        "aria-label=\"The designs on one time axis\">\n",
        strip_width, height);
    // The axis: true time, the same for every row.
    const double step = tick_step(span);
    for (double t = 0; t <= span + 1e-9; t += step) {
        const double x = names_width + (axis_right - names_width) * t / span;
        svg += fmt::format(
            "<line x1=\"{0:.1f}\" y1=\"{1:.0f}\" x2=\"{0:.1f}\" y2=\"{2:.0f}\" stroke=\"#d0d7de\"/>"
            "<text x=\"{0:.1f}\" y=\"14\" text-anchor=\"middle\" class=\"tick\">{3}</text>\n",
            x, axis_height - 6, height - 4,
            escaped(format_duration_rounded(seconds(0) + nanoseconds(std::llround(t * 1e9)))));
    }
    std::string told;
    for (std::size_t i = 0; i < count; ++i) {
        const double y = axis_height + strip_row_height * (static_cast<double>(i) + 0.5);
        svg += fmt::format(
            "<g class=\"strip-row\"><a href=\"#{0}\"><text x=\"4\" y=\"{1:.1f}\" class=\"design-name\">{2}</text></a>"
            "<line x1=\"{3:.0f}\" y1=\"{1:.1f}\" x2=\"{4:.0f}\" y2=\"{1:.1f}\" stroke=\"#8C959F\"/>\n",
            escaped(anchors[i]), y, escaped(shortened(outcome.designs[i].name, strip_name_chars)), names_width,
            axis_right);
        // A pause, a crash or a partition lasts: a band from its start to its end, not a
        // mark at each. A partition that cuts off several nodes is one band.
        std::set<std::uint64_t> band_edges;  // the trace events that began and ended a band
        std::set<std::uint64_t> cuts_drawn;
        for (const auto& band : stories[i].figure.spans) {
            if (!is_fault_span(band)) continue;
            const double from = x_of(band.from), to = std::max(x_of(band.to), from + 2);
            band_edges.insert(band.opened_by);
            if (band.closed_by) band_edges.insert(*band.closed_by);
            const std::string when = fmt::format(" from {} to {}{}", format_seconds(band.from), format_seconds(band.to),
                                                 band.open ? " (still when the run stopped)" : "");
            if (band.kind == FigureSpan::Kind::cut_off) {
                if (cuts_drawn.insert(band.opened_by).second)
                    svg += cut_off_band(band.label + when, from, y - 4, to - from, 8);
                continue;
            }
            svg += fmt::format(
                "<g class=\"fault-band\"><title>{} {}{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" "
                "width=\"{:.1f}\" height=\"8\" fill=\"{}\" fill-opacity=\"0.45\"/></g>\n",
                escaped(stories[i].figure.lanes[band.lane]), band.kind == FigureSpan::Kind::paused ? "paused" : "down",
                escaped(when), from, y - 4, to - from, palette::fault);
        }
        svg += holder_ticks(stories[i].figure, anchors[i], x_of, y);
        // A partition is the world's event, drawn from the first lane, whoever it cuts off.
        const auto on_band_edge = [&](const FigureStep& step) { return band_edges.contains(step.sequence); };
        for (const auto& step : stories[i].figure.steps) {
            if (!marked(step)) continue;
            if (step.tone == EventTone::fault && on_band_edge(step)) continue;
            const double x = x_of(step.at);
            const std::string link = fmt::format("<a href=\"#{}-story-e{}\"><title>e{} at {}: {}</title>",
                                                 escaped(anchors[i]), step.number, step.number, format_seconds(step.at),
                                                 escaped(step.explanation.empty() ? step.text : step.explanation));
            if (step.tone == EventTone::violation)
                svg += link + fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"6\" fill=\"{}\"/></a>", x, y,
                                          palette::violation);
            else if (step.tone == EventTone::protection || !step.explanation.empty())
                svg += link + fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\" fill=\"{}\"/></a>", x, y,
                                          palette::protection);
            else if (step.tone == EventTone::fault)
                svg += link + fmt::format(
                                  "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"7\" height=\"7\" fill=\"{}\" "
                                  "transform=\"rotate(45 {:.1f} {:.1f})\"/></a>",
                                  x - 3.5, y - 3.5, palette::fault, x, y);
        }
        svg += "</g>\n";
        if (i == 0) continue;
        const auto parted = first_divergence(outcome.designs[0].trace, outcome.designs[i].trace);
        if (!parted) {
            told += fmt::format(
                "<li><strong>{}</strong> and <strong>{}</strong> had the same effects in the same order (each "
                "{}, refusal and skip); how the lock passed between the servers may still differ.</li>\n",
                escaped(outcome.designs[i].name), escaped(outcome.designs[0].name),
                escaped(vocabulary_of(outcome.designs[0].trace).effect));
            continue;
        }
        const double x = x_of(parted->at);
        svg += fmt::format(
            "<g class=\"divergence\"><title>{} parts ways with {} at {}</title><line x1=\"{:.1f}\" y1=\"{:.1f}\" "
            "x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/></g>\n",
            escaped(outcome.designs[i].name), escaped(outcome.designs[0].name), format_seconds(parted->at), x,
            axis_height + 4, x, y + 12, palette::ink);
        told += fmt::format(
            "<li><strong>{}</strong> parts ways with <strong>{}</strong> at {}: in {}, {}; in {}, {}.</li>\n",
            escaped(outcome.designs[i].name), escaped(outcome.designs[0].name), format_seconds(parted->at),
            escaped(outcome.designs[0].name), escaped(what_happened(parted->first, outcome.designs[0].trace)),
            escaped(outcome.designs[i].name), escaped(what_happened(parted->second, outcome.designs[i].trace)));
    }
    svg += "</svg>\n";
    const std::string key = fmt::format(
        "<p class=\"strip-key\">The designs on one time axis: a grey tick where a server came to hold the lock, "
        "with its name; a purple band while a node is paused or down, a dashed one while a partition cuts a node off; "
        "a purple diamond for another fault; a red dot for a violation, a green "
        "dot for a protection; a dashed line where a design "
        "parts ways with {}.</p>\n",
        escaped(outcome.designs[0].name));
    return "<div class=\"strip\">\n" + key + svg + "<ul class=\"divergences\">\n" + told + "</ul>\n</div>\n";
}

}  // namespace locksim
