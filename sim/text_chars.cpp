#include "sim/text_chars.hpp"

#include <fmt/format.h>

namespace locksim {

Utf8Char decode_utf8(std::string_view text, std::size_t at) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    if (lead < 0x80) return {lead, 1, true};
    std::size_t size = 0;
    char32_t code_point = 0, smallest = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        size = 2, code_point = lead & 0x1F, smallest = 0x80;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        size = 3, code_point = lead & 0x0F, smallest = 0x800;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        size = 4, code_point = lead & 0x07, smallest = 0x10000;
    } else {
        return {lead, 1, false};  // a continuation byte, C0, C1 or F5–FF: never a first byte
    }
    if (at + size > text.size()) return {lead, 1, false};
    for (std::size_t i = 1; i < size; ++i) {
        if ((byte(at + i) & 0xC0) != 0x80) return {lead, 1, false};
        code_point = (code_point << 6) | (byte(at + i) & 0x3F);
    }
    const bool surrogate = code_point >= 0xD800 && code_point <= 0xDFFF;
    if (code_point < smallest || surrogate || code_point > 0x10FFFF) return {lead, 1, false};
    return {code_point, size, true};
}

bool is_unshowable(char32_t c) {
    const bool control = c < 0x20 || (c >= 0x7F && c <= 0x9F);
    const bool noncharacter = (c >= 0xFDD0 && c <= 0xFDEF) || (c & 0xFFFE) == 0xFFFE;
    const bool reordering = (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069);
    return control || noncharacter || reordering;
}

std::optional<std::string> first_unshowable(std::string_view text) {
    std::size_t character = 1;
    for (std::size_t at = 0; at < text.size(); ++character) {
        const Utf8Char c = decode_utf8(text, at);
        if (!c.valid)
            return fmt::format("the byte 0x{:02X}, not UTF-8, at character {}", static_cast<unsigned>(c.code_point),
                               character);
        if (is_unshowable(c.code_point)) {
            const char32_t p = c.code_point;
            const std::string_view kind = p < 0x20 || p == 0x7F ? "a control character"
                                          : p <= 0x9F           ? "a C1 control character"
                                          : (p >= 0x202A && p <= 0x202E) || (p >= 0x2066 && p <= 0x2069)
                                              ? "a bidirectional control, which reorders the text after it"
                                              : "a Unicode noncharacter";
            return fmt::format("U+{:04X} ({}) at character {}", static_cast<unsigned>(p), kind, character);
        }
        at += c.size;
    }
    return std::nullopt;
}

}  // namespace locksim
