#pragma once
// The compact timeline under the table: one column per node in the order of the
// figures, one line per event with its true time. Messages and reads are left out and a
// run of refused acquire attempts is folded into one line, so the story fits a screen.
// A world of more nodes than fit side by side gets one column naming each line's node
// instead: a column each would make every line as wide as the nodes before its own, and
// the timeline grow with the nodes squared.
#include <string>
#include <string_view>

#include "checks/run_outcome.hpp"
#include "reports/text_style.hpp"

namespace locksim {

std::string render_compact_timeline(const DesignOutcome& design, const TextStyle& style);
// How the timeline is laid out, for its heading: "one column per node" or the other.
std::string_view compact_timeline_layout(const DesignOutcome& design);

}  // namespace locksim
