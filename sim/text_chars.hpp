#pragma once
// Text from a scenario file reaches terminals, HTML pages, JUnit XML and Markdown. One
// rule says which characters no such text may hold, and one decoder walks UTF-8 for every
// place that applies it: the loader refuses them (scenarios/schema/json_reader.cpp), an
// error line writes them as \xNN, and the HTML and XML writers replace them
// (reports/html/markup.cpp), so that a page stays well-formed whatever reaches it.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace locksim {

// One character of UTF-8 text at a byte offset. A byte that starts no well-formed
// sequence (a stray continuation byte, an overlong form, a UTF-16 surrogate, a value
// beyond U+10FFFF, a sequence cut short) is `valid == false`, one byte long.
struct Utf8Char {
    char32_t code_point = 0;
    std::size_t size = 1;
    bool valid = false;
};
Utf8Char decode_utf8(std::string_view text, std::size_t at);

// Characters that act instead of showing:
// - the C0 controls (tab, line break and ESC among them), DEL, and the C1 controls
//   U+0080–U+009F (U+009B starts a terminal's escape sequence as ESC [ does);
// - the noncharacters U+FDD0–U+FDEF and U+nFFFE, U+nFFFF of every plane, which no text
//   should hold (XML forbids U+FFFE and U+FFFF: a JUnit file holding one is not XML);
// - the bidirectional embeddings, overrides and isolates U+202A–U+202E and
//   U+2066–U+2069, which reorder the text after them on the screen.
bool is_unshowable(char32_t c);

// Where `text` first breaks the rule: "U+009B (a C1 control character) at character 8",
// or "the byte 0xFF, not UTF-8, at character 3"; nothing when it does not.
std::optional<std::string> first_unshowable(std::string_view text);

}  // namespace locksim
