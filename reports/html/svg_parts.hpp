#pragma once
// What both drawings of a run share — the full sequence figure and the story view: each
// lane's colour, the arrowheads and crosses, the hatch of the store's bars, a lease bar.
#include <string>
#include <string_view>
#include <vector>

#include "reports/figure/sequence_figure.hpp"

namespace locksim {

// Per lane: servers in the palette's colours in the order they appear, the rest grey.
std::vector<std::string> lane_colours(const SequenceFigure& figure);

// <defs> with "{anchor}-head" (a delivered message), "{anchor}-lost" (a cross where it was
// swallowed) and "{anchor}-hatch" (the store's view of a lock).
std::string svg_definitions(const std::string& anchor);

// A lease bar: "believed" (solid) or "granted" (hatched with `overlay`), with a tooltip.
std::string svg_bar(std::string_view kind, double x, double y, double w, double h, std::string_view colour,
                    const std::string& overlay, const std::string& tip);

// The CSS class of a step's tone: "violation", "protection", "fault" or "normal".
std::string_view tone_name(EventTone tone);

// A span's tooltip: "gc pause: 6.000s to 46.000s".
std::string span_tip(const FigureSpan& span);

// A node cut off by a partition, down a lane: the fault's colour, lighter than a pause and
// outlined in dashes, so that a pause during a partition shows through.
std::string cut_off_band(const std::string& tip, double x, double y, double width, double height);

}  // namespace locksim
