#pragma once
// Two to four designs of one scenario on one time axis, a row each: where each was granted
// the lock, struck by a fault, went wrong or was protected, and the moment each parts ways
// with the first design (reports/figure/divergence.hpp), marked across both rows and told
// in a sentence beneath: the reader sees fenced and unfenced part at the refused claim.
#include <string>
#include <vector>

#include "checks/run_outcome.hpp"
#include "reports/figure/story_figure.hpp"

namespace locksim {

// `stories[i]` is design i's story, `anchors[i]` its article's anchor (the marks link to
// its story's rows). Empty when the scenario has one design or more than four.
std::string render_designs_strip(const ScenarioOutcome& outcome, const std::vector<StoryFigure>& stories,
                                 const std::vector<std::string>& anchors);

}  // namespace locksim
