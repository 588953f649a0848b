#pragma once
#include <fmt/format.h>

#include <string>

namespace locksim {

// What a SQL client prints for an UPDATE: "1 row", "0 rows".
inline std::string rows_label(int rows) {
    return fmt::format("{} row{}", rows, rows == 1 ? "" : "s");
}

}  // namespace locksim
