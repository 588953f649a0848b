#pragma once
// Facts about where output goes, decided once at start-up.
#include <string_view>

namespace locksim {

enum class ColorChoice { automatic, always, never };

// Colour when asked for, or on a terminal unless NO_COLOR is set (https://no-color.org)
// or TERM is "dumb".
bool use_colour(ColorChoice choice);

}  // namespace locksim
