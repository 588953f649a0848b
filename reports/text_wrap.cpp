#include "reports/text_wrap.hpp"

#include <sstream>

namespace locksim {

std::vector<std::string> wrapped_lines(std::string_view text, std::size_t width) {
    std::istringstream words{std::string(text)};
    std::vector<std::string> lines;
    std::string line, word;
    while (words >> word) {
        if (!line.empty() && line.size() + 1 + word.size() > width) {
            lines.push_back(line);
            line.clear();
        }
        line += (line.empty() ? "" : " ") + word;
    }
    if (!line.empty()) lines.push_back(line);
    return lines;
}

}  // namespace locksim
