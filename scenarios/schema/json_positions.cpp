#include "scenarios/schema/json_positions.hpp"

#include <cstdint>
#include <set>

namespace locksim {

std::string escape_pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') {
            out += "~0";
        } else if (c == '/') {
            out += "~1";
        } else {
            out += c;
        }
    }
    return out;
}

namespace {

using Duplicate = std::optional<std::pair<std::string, TextPosition>>;

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// Recursive descent over text nlohmann has already accepted. It never reads past the end;
// on anything unexpected it returns early, and every loop consumes input, so it terminates.
class Scanner {
public:
    Scanner(std::string_view text, std::map<std::string, TextPosition, std::less<>>& values, Duplicate& duplicate)
        : text_(text), values_(values), duplicate_(duplicate) {}

    void value(const std::string& pointer) {
        skip_whitespace();
        if (at_end()) return;
        values_[pointer] = here();
        switch (peek()) {
            case '{': object(pointer); break;
            case '[': array(pointer); break;
            case '"': (void)string(); break;
            default: scalar(); break;
        }
    }

private:
    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }
    TextPosition here() const { return {line_, static_cast<int>(pos_ - line_start_) + 1}; }
    void advance() {
        if (text_[pos_] == '\n') {
            ++line_;
            line_start_ = pos_ + 1;
        }
        ++pos_;
    }
    bool consume(char c) {
        if (at_end() || peek() != c) return false;
        advance();
        return true;
    }
    void skip_whitespace() {
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) {
            advance();
        }
    }

    void object(const std::string& pointer) {
        advance();  // '{'
        std::set<std::string> seen;
        skip_whitespace();
        if (consume('}')) return;
        do {
            skip_whitespace();
            if (peek() != '"') return;
            TextPosition key_at = here();
            std::string key = string();
            std::string member = pointer + "/" + escape_pointer_token(key);
            if (!seen.insert(key).second && !duplicate_) duplicate_.emplace(member, key_at);
            skip_whitespace();
            if (!consume(':')) return;
            value(member);
            skip_whitespace();
        } while (consume(','));
        consume('}');
    }

    void array(const std::string& pointer) {
        advance();  // '['
        skip_whitespace();
        if (consume(']')) return;
        std::size_t index = 0;
        do {
            value(pointer + "/" + std::to_string(index++));
            skip_whitespace();
        } while (consume(','));
        consume(']');
    }

    // Numbers, true, false, null: nlohmann has checked them, we only step over them.
    void scalar() {
        auto part_of_scalar = [](char c) {
            return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || c == '+' ||
                   c == '.';
        };
        while (!at_end() && part_of_scalar(peek())) advance();
    }

    // Steps over a string starting at its opening quote and returns it decoded.
    std::string string() {
        std::string out;
        advance();  // '"'
        while (!at_end()) {
            char c = peek();
            advance();
            if (c == '"') break;
            if (c != '\\') {
                out += c;
                continue;
            }
            if (at_end()) break;
            char e = peek();
            advance();
            switch (e) {
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'u': append_utf8(out, code_point()); break;
                default: out += e; break;  // \" \\ \/
            }
        }
        return out;
    }

    // After "\u": four hex digits, and a following "\uXXXX" low surrogate if this is a high one.
    std::uint32_t code_point() {
        std::uint32_t cp = hex4();
        if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            advance();
            advance();
            std::uint32_t low = hex4();
            if (low >= 0xDC00 && low < 0xE000) return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            return 0xFFFD;  // unpaired surrogate: nlohmann rejects these anyway
        }
        return cp;
    }

    std::uint32_t hex4() {
        std::uint32_t v = 0;
        for (int i = 0; i < 4 && !at_end(); ++i) {
            char c = peek();
            int digit = (c >= '0' && c <= '9')   ? c - '0'
                        : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                        : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                 : -1;
            if (digit < 0) break;
            v = v * 16 + static_cast<std::uint32_t>(digit);
            advance();
        }
        return v;
    }

    std::string_view text_;
    std::map<std::string, TextPosition, std::less<>>& values_;
    Duplicate& duplicate_;
    std::size_t pos_ = 0;
    int line_ = 1;
    std::size_t line_start_ = 0;
};

}  // namespace

JsonPositions JsonPositions::scan(std::string_view text) {
    JsonPositions positions;
    Scanner(text, positions.values_, positions.duplicate_).value("");
    return positions;
}

std::optional<TextPosition> JsonPositions::find(std::string_view pointer) const {
    auto it = values_.find(pointer);
    if (it == values_.end()) return std::nullopt;
    return it->second;
}

TextPosition position_at_offset(std::string_view text, std::size_t offset) {
    if (offset > text.size()) offset = text.size();
    TextPosition position{1, 1};
    for (std::size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n') {
            ++position.line;
            position.column = 1;
        } else {
            ++position.column;
        }
    }
    return position;
}

}  // namespace locksim
