#pragma once
// The stylesheet every page inlines: pages work opened from disk, offline.
#include <string>
#include <string_view>

namespace locksim {

std::string_view page_style();

// The start of a page, up to the opening <body>: `title` (escaped here) and the shared
// stylesheet followed by a page's own rules.
std::string page_head(std::string_view title, std::string_view own_style = "");

}  // namespace locksim
