#include "reports/text_style.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace locksim {

std::size_t display_width(std::string_view text) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0x1b) {  // skip an escape sequence up to its final letter
            while (i < text.size() && !(text[i] >= 'A' && text[i] <= 'Z') && !(text[i] >= 'a' && text[i] <= 'z')) ++i;
            continue;
        }
        if ((c & 0xC0) != 0x80) ++width;  // count lead bytes only
    }
    return width;
}

std::string pad_right(std::string_view text, std::size_t width) {
    std::string padded(text);
    const std::size_t have = display_width(text);
    if (have < width) padded.append(width - have, ' ');
    return padded;
}

// As a POSIX shell reads it back: plain words stay plain, anything else is single-quoted.

}  // namespace locksim
