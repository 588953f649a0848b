#pragma once
// Facts about where output goes, decided once at start-up.
#include <string>
#include <string_view>

namespace locksim {

enum class ColorChoice { automatic, always, never };

// Colour when asked for, or on a terminal unless NO_COLOR is set (https://no-color.org)
// or TERM is "dumb".
bool use_colour(ColorChoice choice);

// Whether a progress line belongs on stderr: it is a terminal, and not a CI log.
bool show_progress();

// "auto", "always" or "never" (the CLI has already checked it is one of them).
ColorChoice color_choice(const std::string& text);

}  // namespace locksim
