#pragma once
// Colour for text output, only when asked for (a terminal without NO_COLOR, or
// --color=always); otherwise every function returns its text unchanged.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

class TextStyle {
public:
    explicit TextStyle(bool colour) : colour_(colour) {}

    std::string violation(std::string_view text) const { return wrap("\x1b[1;31m", text); }  // bold red
    std::string fault(std::string_view text) const { return wrap("\x1b[33m", text); }        // yellow
    std::string good(std::string_view text) const { return wrap("\x1b[32m", text); }         // green
    std::string heading(std::string_view text) const { return wrap("\x1b[1m", text); }       // bold
    std::string quiet(std::string_view text) const { return wrap("\x1b[2m", text); }         // dim

private:
    std::string wrap(std::string_view code, std::string_view text) const {
        if (!colour_) return std::string(text);
        return std::string(code) + std::string(text) + "\x1b[0m";
    }
    bool colour_;
};

// Width of `text` on a terminal: counts UTF-8 code points, skips colour escapes.
std::size_t display_width(std::string_view text);

// 1236 as "1,236": counts people read at a glance.
std::string grouped(std::uint64_t n);

// `text` padded with spaces to `width` display columns.
std::string pad_right(std::string_view text, std::size_t width);

// Rows as aligned columns three spaces apart, the first row as a heading; every row has
// as many cells as the first.
std::string text_table(const std::vector<std::vector<std::string>>& rows, const TextStyle& style);

}  // namespace locksim
