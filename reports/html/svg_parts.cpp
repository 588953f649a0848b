#include "reports/html/svg_parts.hpp"

#include <fmt/format.h>

#include "reports/html/markup.hpp"
#include "reports/html/palette.hpp"
#include "sim/duration_text.hpp"

namespace locksim {

std::vector<std::string> lane_colours(const SequenceFigure& figure) {
    std::vector<std::string> colours;
    std::size_t rank = 0;
    for (std::size_t lane = 0; lane < figure.lanes.size(); ++lane) {
        const bool server = figure.is_server[lane];
        colours.emplace_back(palette::node_colour(server ? rank : 0, server));
        if (server) ++rank;
    }
    return colours;
}

std::string svg_definitions(const std::string& anchor) {
    return fmt::format(
        "<defs>\n"
        "<marker id=\"{0}-head\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" "
        "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"context-stroke\"/></marker>\n"
        "<marker id=\"{0}-lost\" viewBox=\"0 0 10 10\" refX=\"5\" refY=\"5\" markerWidth=\"9\" markerHeight=\"9\">"
        "<path d=\"M1,1 L9,9 M9,1 L1,9\" stroke=\"{1}\" stroke-width=\"2\"/></marker>\n"
        "<pattern id=\"{0}-hatch\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" "
        "patternTransform=\"rotate(45)\"><rect width=\"2.5\" height=\"5\" fill=\"white\" "
        "opacity=\"0.55\"/></pattern>\n</defs>\n",
        escaped(anchor), palette::violation);
}

std::string svg_bar(std::string_view kind, double x, double y, double w, double h, std::string_view colour,
                    const std::string& overlay, const std::string& tip) {
    std::string out = fmt::format(
        "<g class=\"{}\"><title>{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"{:.1f}\" fill=\"{}\" opacity=\"0.85\"/>",
        kind, escaped(tip), x, y, w, h, colour);
    if (!overlay.empty())
        out += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>", x, y, w,
                           h, overlay);
    return out + "</g>\n";
}

std::string_view tone_name(EventTone tone) {
    switch (tone) {
        case EventTone::violation: return "violation";
        case EventTone::protection: return "protection";
        case EventTone::fault: return "fault";
        case EventTone::normal: break;
    }
    return "normal";
}

std::string span_tip(const FigureSpan& span) {
    return fmt::format("{}: {} to {}{}", span.label, format_seconds(span.from), format_seconds(span.to),
                       span.open ? " (still when the run stopped)" : "");
}

std::string cut_off_band(const std::string& tip, double x, double y, double width, double height) {
    return fmt::format(
        "<g class=\"cut-off\"><title>{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
        "fill=\"{}\" fill-opacity=\"0.1\" stroke=\"{}\" stroke-dasharray=\"4 3\"/></g>\n",
        escaped(tip), x, y, width, height, palette::fault, palette::fault);
}

}  // namespace locksim
