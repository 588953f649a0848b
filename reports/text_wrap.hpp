#pragma once
// Text broken into lines of at most `width` characters at spaces (a longer word gets a
// line of its own): descriptions in the terminal, notes in a Mermaid diagram.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

std::vector<std::string> wrapped_lines(std::string_view text, std::size_t width);

}  // namespace locksim
