#include "cli/terminal.hpp"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace locksim {

bool use_colour(ColorChoice choice) {
    if (choice != ColorChoice::automatic) return choice == ColorChoice::always;
    const char* no_color = std::getenv("NO_COLOR");
    if (no_color != nullptr && no_color[0] != '\0') return false;
    const char* term = std::getenv("TERM");
    if (term != nullptr && std::strcmp(term, "dumb") == 0) return false;
    return isatty(STDOUT_FILENO) != 0;
}

bool show_progress() {
    return isatty(STDERR_FILENO) != 0 && isatty(STDOUT_FILENO) != 0 && std::getenv("CI") == nullptr;
}

ColorChoice color_choice(const std::string& text) {
    if (text == "always") return ColorChoice::always;
    if (text == "never") return ColorChoice::never;
    return ColorChoice::automatic;
}

}  // namespace locksim
