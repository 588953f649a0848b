#pragma once
// Colours of the HTML and SVG reports: the Okabe–Ito palette, which stays distinct for
// the common forms of colour blindness. Each server keeps its colour in every view; the
// store and service nodes are grey; vermillion with ✗ marks a violation and bluish green
// with ✓ a protection that worked, so neither depends on colour alone.
#include <string>
#include <string_view>

namespace locksim::palette {

inline constexpr std::string_view violation = "#D55E00";
inline constexpr std::string_view protection = "#009E73";
inline constexpr std::string_view fault = "#6B4C9A";
inline constexpr std::string_view service = "#5F6B73";
inline constexpr std::string_view ink = "#1F2328";
inline constexpr std::string_view faint = "#8C959F";  // lines and rules, never text
// Text in the violation's and the protection's hue, dark enough for WCAG AA (4.5:1) on
// white and on the page's light grey.
inline constexpr std::string_view violation_text = "#B04A00";
inline constexpr std::string_view protection_text = "#00775A";
inline constexpr std::string_view faint_text = "#5F6770";

// The colour of the node drawn in `lane`; `is_server` from the lane's node.
std::string_view node_colour(std::size_t server_rank, bool is_server);

// Text on a background of `colour` ("#RRGGBB"): white where white reaches the WCAG AA
// contrast of 4.5:1, the ink colour otherwise (orange, sky blue, yellow lanes).
std::string_view text_on(std::string_view colour);

// The WCAG contrast ratio of two "#RRGGBB" colours, from 1 to 21.
double contrast(std::string_view a, std::string_view b);

}  // namespace locksim::palette
