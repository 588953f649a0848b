#pragma once
// Text that reaches an HTML page or an SVG figure. Everything a scenario file can say
// (names, descriptions, keys, labels) goes through escaped() before it touches markup.
#include <string>
#include <string_view>

namespace locksim {

// &, <, >, " and ' as entities: safe in element text and in quoted attribute values, of
// HTML, SVG and XML alike (the JUnit report uses it too). What no page or XML file may
// hold (bytes that are not UTF-8, and what is_unshowable() in sim/text_chars.hpp names,
// U+FFFE and U+FFFF among them) becomes U+FFFD; tab and line breaks stay. The loader
// refuses all of these in a scenario's text; a file's name, an error line or a value
// set by a command's option could still carry one, and the page stays well-formed.
//
// This is the one escaper of markup: every HTML page, SVG figure and JUnit file writes
// the text it did not write itself through it. Mermaid diagrams and their Markdown have
// their own syntax and their own (mermaid_text and markdown_text, reports/mermaid.hpp).
std::string escaped(std::string_view text);

// A fragment identifier made of [a-z0-9-] only: "redis/failover" → "redis-failover".
std::string slug(std::string_view text);

// At most `limit` characters (UTF-8 aware), with "…" when cut.
std::string shortened(std::string_view text, std::size_t limit);

}  // namespace locksim
