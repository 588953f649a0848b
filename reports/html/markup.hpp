#pragma once
// Text that reaches an HTML page or an SVG figure. Everything a scenario file can say
// (names, descriptions, keys, labels) goes through escaped() before it touches markup.
#include <string>
#include <string_view>

namespace locksim {

// &, <, >, " and ' as entities: safe in element text and in quoted attribute values, of
// HTML, SVG and XML alike (the JUnit report uses it too).
std::string escaped(std::string_view text);

// A fragment identifier made of [a-z0-9-] only: "redis/failover" → "redis-failover".
std::string slug(std::string_view text);

// At most `limit` characters (UTF-8 aware), with "…" when cut.
std::string shortened(std::string_view text, std::size_t limit);

}  // namespace locksim
