// Every text a scenario carries follows one rule, whatever field holds it (sim/text_chars.hpp):
// no control character (C0, DEL, C1), no noncharacter, no bidirectional override, nothing
// that is not UTF-8. Every string of every shipped scenario, and every name of a member,
// is given such a character in turn: the loader refuses each file at that place, with a
// message that quotes what it refuses escaped.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <filesystem>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "scenarios/schema/json_positions.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/text_chars.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;

namespace {

// One of each kind the rule refuses, as UTF-8.
constexpr std::array<std::string_view, 11> refused_characters{
    "\x1b",              // ESC, a C0 control
    "\t",                // a tab
    "\x7f",              // DEL
    "\xC2\x9B",          // U+009B, a terminal's escape sequence in one C1 character
    "\xC2\x85",          // U+0085, a C1 line break
    "\xEF\xBF\xBE",      // U+FFFE, which XML forbids
    "\xEF\xBF\xBF",      // U+FFFF, which XML forbids
    "\xF0\x9F\xBF\xBE",  // U+1FFFE, a noncharacter of plane 1
    "\xEF\xB7\x90",      // U+FDD0, a noncharacter
    "\xE2\x80\xAE",      // U+202E, a right-to-left override
    "\xE2\x81\xA7",      // U+2067, a right-to-left isolate
};

struct TextPlace {
    std::string pointer;  // of the string, or of the member whose name it is
    bool name = false;    // the member's name rather than a string value
};

void collect_text_places(const Json& value, const std::string& pointer, std::vector<TextPlace>& places) {
    if (value.is_string()) places.push_back({pointer, false});
    if (value.is_object())
        for (auto it = value.begin(); it != value.end(); ++it) {
            const std::string child = pointer + "/" + escape_pointer_token(it.key());
            places.push_back({child, true});
            collect_text_places(it.value(), child, places);
        }
    if (value.is_array())
        for (std::size_t i = 0; i < value.size(); ++i)
            collect_text_places(value[i], pointer + "/" + std::to_string(i), places);
}

// `text` with `character` after its first character (an empty text becomes the character).
std::string with_character_after_first(const std::string& text, std::string_view character) {
    const std::size_t at = text.empty() ? 0 : decode_utf8(text, 0).size;
    return text.substr(0, at) + std::string(character) + text.substr(at);
}

// The pointer the message names: "FILE[:LINE:COL]: POINTER: …".
std::string pointer_in_message(const std::string& message, const std::string& file) {
    std::string rest = message.substr(file.size());
    if (const auto colon = rest.find(": /"); colon != std::string::npos) rest = rest.substr(colon + 2);
    return rest.substr(0, rest.find(": "));
}

}  // namespace

TEST_CASE("every text of every shipped scenario is refused where it stands when it holds what no text may") {
    std::vector<std::string> files;
    for (const auto& name : testing::shipped_scenario_files()) files.push_back(testing::scenario_path(name));
    REQUIRE(files.size() >= 40);
    std::size_t values = 0, names = 0, turn = 0;
    for (const auto& file : files) {
        const std::string text = testing::slurp(file);
        const Json document = Json::parse(text);
        REQUIRE_NOTHROW(parse_scenario(text, file, metric_names()));
        std::vector<TextPlace> places;
        collect_text_places(document, "", places);
        for (const auto& place : places) {
            const std::string_view character = refused_characters[turn++ % refused_characters.size()];
            const Json::json_pointer pointer(place.pointer);
            Json changed = document;
            std::string expected_pointer = place.pointer;
            if (place.name) {
                // The member under a name with the character in it, in its place among the others.
                Json& parent = changed.at(pointer.parent_pointer());
                const std::string key = pointer.back();
                Json renamed = Json::object();
                for (auto it = parent.begin(); it != parent.end(); ++it)
                    renamed[it.key() == key ? with_character_after_first(key, character) : it.key()] = it.value();
                parent = renamed;
                expected_pointer = pointer.parent_pointer().to_string() + "/" +
                                   escape_pointer_token(with_character_after_first(key, character));
                ++names;
            } else {
                changed[pointer] = with_character_after_first(changed[pointer].get<std::string>(), character);
                ++values;
            }
            CAPTURE(file, place.pointer, place.name, static_cast<int>(character[0]));
            std::string message;
            try {
                parse_scenario(changed.dump(), file, metric_names());
                FAIL_CHECK("accepted");
                continue;
            } catch (const ScenarioError& error) {
                message = error.what();
            }
            CAPTURE(message);
            // Quoted escaped, on one line.
            CHECK(first_unshowable(message) == std::nullopt);
            CHECK(message.starts_with(file + ":"));
            // At its place, saying what text may hold.
            CHECK(pointer_in_message(message, file) == message_safe(expected_pointer));
            CHECK(message.find(plain_text_expected) != std::string::npos);
        }
    }
    INFO(values << " values, " << names << " names");
    CHECK(values > 1000);
    CHECK(names > 1000);
}

TEST_CASE("a text set by --vary follows the same rule, bytes that are not UTF-8 too") {
    const std::string file = testing::scenario_path("gc-pause-40s.json");
    const std::string text = testing::slurp(file);
    const auto refusal = [&](const std::string& pointer, const std::string& value) {
        try {
            parse_scenario(text, file, metric_names(), {ScenarioVariation{pointer, Json(value)}});
        } catch (const ScenarioError& error) {
            return std::string(error.what());
        }
        return std::string("accepted");
    };
    CHECK(refusal("/lesson",
                  "red \xC2\x9B"
                  "31m") == file + ":5:13: /lesson: " + std::string(plain_text_expected) +
                                ", got U+009B (a C1 control character) at character 5");
    CHECK(refusal("/job/period", "2026\xFF") == file + ":25:15: /job/period: " + std::string(plain_text_expected) +
                                                    ", got the byte 0xFF, not UTF-8, at character 5");
    CHECK(refusal("/designs/fenced/lock/key", "k\xEF\xBF\xBF") ==
          file + ":47:46: /designs/fenced/lock/key: " + std::string(plain_text_expected) +
              ", got U+FFFF (a Unicode noncharacter) at character 2");
    CHECK(refusal("/lesson", "plain words, « guillemets », 🔒") == "accepted");
}
