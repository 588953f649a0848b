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

std::string grouped(std::uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string text_table(const std::vector<std::vector<std::string>>& rows, const TextStyle& style) {
    if (rows.empty()) return "";
    const std::size_t columns = rows.front().size();
    std::vector<std::size_t> widths(columns, 0);
    for (const auto& row : rows)
        for (std::size_t c = 0; c < columns; ++c) widths[c] = std::max(widths[c], display_width(row[c]));
    std::string table;
    for (std::size_t r = 0; r < rows.size(); ++r) {
        std::string line;
        for (std::size_t c = 0; c < columns; ++c) {
            const std::string cell = r == 0 ? style.heading(rows[r][c]) : rows[r][c];
            line += c + 1 == columns ? cell : pad_right(cell, widths[c] + 3);
        }
        table += line + "\n";
    }
    return table;
}

}  // namespace locksim
