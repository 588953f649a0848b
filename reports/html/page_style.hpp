#pragma once
// The stylesheet every page inlines: pages work opened from disk, offline.
#include <string_view>

namespace locksim {

std::string_view page_style();

}  // namespace locksim
