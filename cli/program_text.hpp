#pragma once
// What the program says of itself as a whole: the first lines of `locksim --help`, its
// footer, and the man page's NAME, DESCRIPTION and EXIT STATUS, written once here.
#include <string_view>

namespace locksim {

inline constexpr std::string_view program_summary =
    "a deterministic simulator of distributed locks under pauses, clock jumps and delays";

inline constexpr std::string_view program_description =
    "Runs every design of a scenario under the same seed and faults, and counts double charges,\n"
    "overlapping holders and stale writes. Same file and seed, same bytes out.";

struct ExitCode {
    int code;
    std::string_view meaning;
};

inline constexpr ExitCode exit_codes[] = {
    {0, "every expectation held"},
    {1, "an expectation failed"},
    {2, "unusable input or arguments"},
    {3, "an internal error (a bug: please report it with the file and seed)"},
};

}  // namespace locksim
