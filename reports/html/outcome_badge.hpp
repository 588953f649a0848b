#pragma once
// The mark of what a run (or a sweep) did to what the lock protects, as the pages and the
// course index show it: a tone ("safe", "harmed", "idle") the style colours, and its words.
#include <string>
#include <string_view>

namespace locksim {

std::string badge(std::string_view tone, const std::string& text);

}  // namespace locksim
