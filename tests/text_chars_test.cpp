// The one rule for what no text a scenario carries may hold, and the UTF-8 decoder that
// every place applying it shares (sim/text_chars.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "sim/text_chars.hpp"

using namespace locksim;

TEST_CASE("decode_utf8 reads well-formed UTF-8 and takes any other byte alone as not UTF-8") {
    const auto decoded = [](std::string_view text) { return decode_utf8(text, 0); };
    CHECK(decoded("a").code_point == U'a');
    CHECK(decoded("é").code_point == U'é');
    CHECK(decoded("é").size == 2);
    CHECK(decoded("€").size == 3);
    CHECK(decoded("\xF0\x9F\x94\x92").code_point == 0x1F512);  // 🔒
    CHECK(decoded("\xF0\x9F\x94\x92").size == 4);
    CHECK(decoded("\xF0\x9F\x94\x92").valid);
    for (const std::string_view bad : {
             std::string_view("\xFF"),              // never in UTF-8
             std::string_view("\x80"),              // a continuation byte first
             std::string_view("\xC0\xAF"),          // an overlong '/'
             std::string_view("\xE0\x80\xAF"),      // an overlong '/' in three bytes
             std::string_view("\xED\xA0\x80"),      // U+D800, a surrogate
             std::string_view("\xF4\x90\x80\x80"),  // beyond U+10FFFF
             std::string_view("\xE2\x82"),          // cut short
             std::string_view("\xC3("),             // a lead byte without its continuation
         }) {
        INFO(static_cast<unsigned>(static_cast<unsigned char>(bad[0])));
        CHECK_FALSE(decoded(bad).valid);
        CHECK(decoded(bad).size == 1);
    }
}

TEST_CASE(
    "controls, noncharacters and bidirectional overrides are unshowable, and letters, symbols and marks are not") {
    for (const char32_t c : {0x00,   0x09,   0x0A,   0x1B,   0x1F,    0x7F,     0x80,   0x85,   0x9B,   0x9F,
                             0xFDD0, 0xFDEF, 0xFFFE, 0xFFFF, 0x1FFFE, 0x10FFFF, 0x202A, 0x202E, 0x2066, 0x2069}) {
        INFO(static_cast<unsigned>(c));
        CHECK(is_unshowable(c));
    }
    for (const char32_t c :
         {0x20, 0x41, 0x7E, 0xA0, 0xE9, 0x200E, 0x2029, 0x20AC, 0xFDCF, 0xFDF0, 0xFFFD, 0x1F512, 0x10000, 0x10FFFD}) {
        INFO(static_cast<unsigned>(c));
        CHECK_FALSE(is_unshowable(c));
    }
}

TEST_CASE("first_unshowable names the first character the rule refuses and where it is") {
    CHECK(first_unshowable("renewals · 2026-10 · café 🔒") == std::nullopt);
    CHECK(first_unshowable("") == std::nullopt);
    CHECK(first_unshowable("red\x1b[31m") == "U+001B (a control character) at character 4");
    CHECK(first_unshowable("é\xC2\x9B"
                           "31m") == "U+009B (a C1 control character) at character 2");
    CHECK(first_unshowable("a\xEF\xBF\xBE") == "U+FFFE (a Unicode noncharacter) at character 2");
    CHECK(first_unshowable("\xE2\x80\xAE"
                           "01-6202") ==
          "U+202E (a bidirectional control, which reorders the text after it) at character 1");
    CHECK(first_unshowable("ab\xFF") == "the byte 0xFF, not UTF-8, at character 3");
}
