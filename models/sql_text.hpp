#pragma once
#include <fmt/format.h>

#include <string>

namespace locksim {

// What a SQL client prints for an UPDATE: "1 row", "0 rows".
inline std::string rows_label(int rows) {
    return fmt::format("{} row{}", rows, rows == 1 ? "" : "s");
}

// A scenario's word as a SQL name: "ledger batch" → ledger_batch. Letters and digits stay,
// anything else becomes '_', so no word can break the statement it is written into.
inline std::string sql_name(std::string word) {
    for (char& c : word)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) c = '_';
    return word;
}

}  // namespace locksim
