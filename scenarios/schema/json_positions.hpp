#pragma once
// Where values stand in the text of a JSON document.
//
// nlohmann::json keeps no source positions, yet every scenario error must be reported as
// `file:line:column: /json/pointer: message`. So after nlohmann has parsed (and thereby
// validated) a file, JsonPositions walks the same text once more and records where each
// value starts, keyed by its JSON pointer. It also notices duplicate object keys, which
// nlohmann accepts silently by keeping the last one.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace locksim {

// Both 1-based. The column counts bytes: a tab counts 1, a UTF-8 sequence counts its bytes.
struct TextPosition {
    int line = 0;
    int column = 0;
    bool operator==(const TextPosition&) const = default;
};

class JsonPositions {
public:
    // `text` must already be valid JSON (nlohmann parsed it). Throws nothing (beyond
    // std::bad_alloc); on invalid text it stops early and records what it reached.
    // Line breaks are "\n"; "\r\n" therefore counts as one.
    static JsonPositions scan(std::string_view text);

    // Where the value at `pointer` starts: "" is the root, "/faults/0/for" a nested value.
    // Keys are decoded (\" \\ \uXXXX ...) and escaped per RFC 6901 (~ -> ~0, / -> ~1).
    // If a key appears twice in one object, the position is that of the last value, the
    // one nlohmann keeps.
    std::optional<TextPosition> find(std::string_view pointer) const;

    // The first object member (in text order) whose key was already used in the same
    // object: its pointer and the position of the second occurrence's key (its opening quote).
    const std::optional<std::pair<std::string, TextPosition>>& duplicate_key() const { return duplicate_; }

private:
    std::map<std::string, TextPosition, std::less<>> values_;
    std::optional<std::pair<std::string, TextPosition>> duplicate_;
};

// The 1-based line and column of the byte at `offset` (0-based) in `text`; an offset at
// or past the end gives the position just after the last byte.
//
// For a nlohmann::json::parse_error `e`, pass `e.byte == 0 ? 0 : e.byte - 1`: nlohmann's
// `byte` is the number of bytes it had read, i.e. the 1-based offset of the last byte it
// looked at. That is the last byte of the offending token (the closing quote of an
// unexpected string, for a missing comma before a key), or text.size() + 1 for an
// unexpected end of input. The result equals the "line L, column C" in e.what().
// One reference token of a JSON pointer, escaped per RFC 6901 (~ as ~0, / as ~1).
std::string escape_pointer_token(std::string_view key);

TextPosition position_at_offset(std::string_view text, std::size_t offset);

}  // namespace locksim
