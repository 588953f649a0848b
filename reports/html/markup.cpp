#include "reports/html/markup.hpp"

#include "sim/text_chars.hpp"

namespace locksim {
namespace {

// U+FFFD, the character Unicode gives for one that cannot be shown.
constexpr std::string_view replacement_character = "\xEF\xBF\xBD";

}  // namespace

std::string escaped(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t at = 0; at < text.size();) {
        const char c = text[at];
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            case '\t':
            case '\n':
            case '\r': out += c; break;
            default: {
                const Utf8Char decoded = decode_utf8(text, at);
                if (decoded.valid && !is_unshowable(decoded.code_point))
                    out += text.substr(at, decoded.size);
                else
                    out += replacement_character;
                at += decoded.size;
                continue;
            }
        }
        ++at;
    }
    return out;
}

std::string slug(std::string_view text) {
    std::string out;
    for (char c : text) {
        const char lower = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
        const bool keep = (lower >= 'a' && lower <= 'z') || (lower >= '0' && lower <= '9');
        if (keep)
            out += lower;
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.empty() ? std::string("design") : out;
}

std::string shortened(std::string_view text, std::size_t limit) {
    std::size_t characters = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if ((byte & 0xC0) == 0x80) continue;  // a continuation byte belongs to the character before
        if (characters == limit) return std::string(text.substr(0, i)) + "…";
        ++characters;
    }
    return std::string(text);
}

}  // namespace locksim
