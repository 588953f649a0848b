#pragma once
// The story view as inline SVG, sized to fit a page: narrow lanes on the left carry the
// marks, arrows and bars; a column on the right says each step in words, with the
// checker's sentence in full beneath it. Rows follow each other in time order, evenly
// spaced: the true time of each is printed at the left, a band marks where time passed
// between two rows, and an arrow ends at the row of its message's arrival. The lane names
// are a second, narrow SVG that stays at the top of the window while the figure scrolls.
#include <string>

#include "reports/figure/story_figure.hpp"

namespace locksim {

// `anchor` prefixes the ids ("{anchor}-story-e{n}"); each step links to
// "{steps_page}#{anchor}-e{n}", its row in the page of every step.
std::string render_story_svg(const StoryFigure& story, const std::string& anchor, const std::string& steps_page);

// The key to the story view's marks, as a small SVG.
std::string render_story_legend();

}  // namespace locksim
