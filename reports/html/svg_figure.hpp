#pragma once
// A sequence figure as inline SVG, drawn as sequence diagrams are: a lane per
// node, time running down, arrows for messages from send to delivery, bars for leases
// and pauses, violations marked and captioned.
#include <string>

#include "reports/figure/sequence_figure.hpp"

namespace locksim {

// `anchor` prefixes the ids: step n is "{anchor}-fig-e{n}" and links to the event
// table's row "{anchor}-e{n}".
std::string render_svg_figure(const SequenceFigure& figure, const std::string& anchor);

// The key to the figures' marks, as a small SVG.
std::string render_svg_legend();

}  // namespace locksim
