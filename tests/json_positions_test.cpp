#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "scenarios/schema/json_positions.hpp"

using namespace locksim;

namespace {

// "line:column" of the value at `pointer`, or "missing".
std::string at(const JsonPositions& positions, std::string_view pointer) {
    auto found = positions.find(pointer);
    if (!found) return "missing";
    return std::to_string(found->line) + ":" + std::to_string(found->column);
}

std::string text_of(TextPosition p) {
    return std::to_string(p.line) + ":" + std::to_string(p.column);
}

}  // namespace

TEST_CASE("nested values are found by their JSON pointer", "[json_positions]") {
    std::string text = R"({
  "name": "flagship",
  "lock": {
    "ttl": "30s",
    "store": {"kind": "redis", "nodes": 1}
  }
})";
    REQUIRE(nlohmann::json::accept(text));
    auto positions = JsonPositions::scan(text);
    CHECK(at(positions, "") == "1:1");
    CHECK(at(positions, "/name") == "2:11");
    CHECK(at(positions, "/lock") == "3:11");
    CHECK(at(positions, "/lock/ttl") == "4:12");
    CHECK(at(positions, "/lock/store") == "5:14");
    CHECK(at(positions, "/lock/store/kind") == "5:23");
    CHECK(at(positions, "/lock/store/nodes") == "5:41");
    CHECK(at(positions, "/lock/missing") == "missing");
    CHECK_FALSE(positions.duplicate_key());
}

TEST_CASE("array elements are found by their index", "[json_positions]") {
    std::string text = R"({"faults": [
  {"at": "10s", "for": "5s"},
  [true, false, null],
  -1.5e3
]})";
    REQUIRE(nlohmann::json::accept(text));
    auto positions = JsonPositions::scan(text);
    CHECK(at(positions, "/faults") == "1:12");
    CHECK(at(positions, "/faults/0") == "2:3");
    CHECK(at(positions, "/faults/0/for") == "2:24");
    CHECK(at(positions, "/faults/1/0") == "3:4");
    CHECK(at(positions, "/faults/1/1") == "3:10");
    CHECK(at(positions, "/faults/1/2") == "3:17");
    CHECK(at(positions, "/faults/2") == "4:3");
    CHECK(at(positions, "/faults/3") == "missing");
}

TEST_CASE("keys containing slash and tilde are escaped in pointers", "[json_positions]") {
    std::string text = R"({"a/b": 1, "c~d": 2, "~/": {"x": 3}})";
    REQUIRE(nlohmann::json::accept(text));
    auto positions = JsonPositions::scan(text);
    CHECK(at(positions, "/a~1b") == "1:9");
    CHECK(at(positions, "/c~0d") == "1:19");
    CHECK(at(positions, "/~0~1/x") == "1:34");
    CHECK(at(positions, "/a/b") == "missing");
    // The pointers agree with nlohmann's own.
    auto json = nlohmann::json::parse(text);
    CHECK(json.at(nlohmann::json::json_pointer("/~0~1/x")) == 3);
}

TEST_CASE("escaped keys are decoded, including unicode escapes", "[json_positions]") {
    std::string text = R"({"caf\u00e9": 1, "\ud83d\ude00": 2, "tab\tq\"": 3})";
    REQUIRE(nlohmann::json::accept(text));
    auto positions = JsonPositions::scan(text);
    CHECK(at(positions, "/caf\xC3\xA9") == "1:15");
    CHECK(at(positions, "/\xF0\x9F\x98\x80") == "1:34");
    CHECK(at(positions, "/tab\tq\"") == "1:49");
    // Every leaf pointer nlohmann derives from the same text is found.
    auto leaves = nlohmann::json::parse(text).flatten();
    for (const auto& leaf : leaves.items()) {
        INFO(leaf.key());
        CHECK(positions.find(leaf.key()));
    }
}

TEST_CASE("strings containing escaped quotes and braces do not confuse the scan", "[json_positions]") {
    std::string text = R"({"msg": "a \"}\" and {[\\", "next": ["]", "\\"], "last": 7})";
    REQUIRE(nlohmann::json::accept(text));
    auto positions = JsonPositions::scan(text);
    CHECK(at(positions, "/msg") == "1:9");
    CHECK(at(positions, "/next") == "1:37");
    CHECK(at(positions, "/next/0") == "1:38");
    CHECK(at(positions, "/next/1") == "1:43");
    CHECK(at(positions, "/last") == "1:58");
    CHECK_FALSE(positions.duplicate_key());
}

TEST_CASE("a CRLF line break counts as one line break", "[json_positions]") {
    std::string text = "{\r\n  \"a\": 1,\r\n\r\n\t\"b\": [\r\n    2\r\n  ]\r\n}\r\n";
    REQUIRE(nlohmann::json::accept(text));
    auto positions = JsonPositions::scan(text);
    CHECK(at(positions, "/a") == "2:8");
    CHECK(at(positions, "/b") == "4:7");
    CHECK(at(positions, "/b/0") == "5:5");
    CHECK(text_of(position_at_offset(text, text.find('2'))) == "5:5");
}

TEST_CASE("a duplicate key in a nested object is reported at its second occurrence", "[json_positions]") {
    std::string text = R"({
  "hosts": {
    "a": {"pause": "1s"},
    "b": {"pause": "2s",
          "pause": "3s"},
    "a": {}
  }
})";
    REQUIRE(nlohmann::json::accept(text));  // nlohmann accepts it and keeps the last value
    auto positions = JsonPositions::scan(text);
    const auto& duplicate = positions.duplicate_key();
    REQUIRE(duplicate);
    CHECK(duplicate->first == "/hosts/b/pause");
    CHECK(text_of(duplicate->second) == "5:11");
    // The recorded value is the one nlohmann keeps.
    CHECK(at(positions, "/hosts/b/pause") == "5:20");
}

TEST_CASE("a clean document has no duplicate key", "[json_positions]") {
    std::string text = R"({"a": {"x": 1}, "b": {"x": 2}, "c": [{"x": 3}, {"x": 4}]})";
    REQUIRE(nlohmann::json::accept(text));
    CHECK_FALSE(JsonPositions::scan(text).duplicate_key());
}

TEST_CASE("every prefix of a document is scanned without reading past its end", "[json_positions]") {
    std::string text = R"({"a": [1, {"b\u00e9": "x\"y"}], "c": null})";
    for (std::size_t n = 0; n <= text.size(); ++n) {
        auto positions = JsonPositions::scan(std::string_view(text).substr(0, n));
        CHECK((n == 0) == !positions.find(""));
    }
}

TEST_CASE("position_at_offset turns a real nlohmann parse error into line and column", "[json_positions]") {
    SECTION("a missing comma points at the end of the unexpected key") {
        std::string text = "{\n  \"a\": 1\n  \"b\": 2\n}\n";
        try {
            auto parsed = nlohmann::json::parse(text);
            (void)parsed;
            FAIL("expected a parse error");
        } catch (const nlohmann::json::parse_error& e) {
            CHECK(e.byte == 16);  // 1-based offset of the closing quote of "b"
            CHECK(text_of(position_at_offset(text, e.byte - 1)) == "3:5");
            CHECK(std::string(e.what()).find("line 3, column 5") != std::string::npos);
        }
    }
    SECTION("an error at the start of line 3") {
        std::string text = "{\n\"a\": 1,\n@}";
        try {
            auto parsed = nlohmann::json::parse(text);
            (void)parsed;
            FAIL("expected a parse error");
        } catch (const nlohmann::json::parse_error& e) {
            CHECK(text_of(position_at_offset(text, e.byte - 1)) == "3:1");
        }
    }
    SECTION("an unexpected end of input points just past the last byte") {
        std::string text = "{\"a\": 1";
        try {
            auto parsed = nlohmann::json::parse(text);
            (void)parsed;
            FAIL("expected a parse error");
        } catch (const nlohmann::json::parse_error& e) {
            CHECK(e.byte == text.size() + 1);
            CHECK(text_of(position_at_offset(text, e.byte - 1)) == "1:8");
        }
    }
    SECTION("offsets are clamped and tabs count one column") {
        CHECK(text_of(position_at_offset("", 0)) == "1:1");
        CHECK(text_of(position_at_offset("\tx", 1)) == "1:2");
        CHECK(text_of(position_at_offset("ab\n", 99)) == "2:1");
    }
}
