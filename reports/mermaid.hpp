#pragma once
// A design's run as a Mermaid sequenceDiagram, to paste into Markdown on GitHub or
// GitLab: a participant per node, an arrow per message (dashed for replies, a cross when
// lost), the holder's belief as an activation bar, notes for local steps. Each line
// carries the step's number (e17), the same as in the HTML report.
#include <string>

#include "checks/run_outcome.hpp"

namespace locksim {

// Markdown: a heading and a fenced ```mermaid block per design.
std::string render_mermaid(const ScenarioOutcome& outcome);

// Text made safe inside a Mermaid message or note: ';' and '#' and angle brackets as
// entity codes, '%' too (Mermaid reads "%%{init: …}%%" anywhere in a diagram as its
// configuration), and the keyword "end" defused.
std::string mermaid_text(std::string_view text);

// Text made plain in a line of Markdown (a heading): each character that CommonMark or
// GitHub's extensions give a meaning within a line (markup and entities, emphasis, code,
// links and images, strikethrough, tables, math) behind a backslash, which shows it as
// itself.
std::string markdown_text(std::string_view text);

}  // namespace locksim
