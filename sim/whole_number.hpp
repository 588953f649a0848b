#pragma once
// A whole number as a person types it: digits only, within `max`. "-1", "+3", "1e3", "0x10",
// "3.0" or 2^64 is a mistake to report, never a value to round, wrap or read in another
// base. Every number of the command line comes through here (cli/whole_number.hpp), and
// the counts a shard keeps per seed (checks/sweep_summary.hpp).
#include <cstdint>
#include <optional>
#include <string_view>

namespace locksim {

inline std::optional<std::uint64_t> parse_whole_number(std::string_view text, std::uint64_t max = UINT64_MAX) {
    if (text.empty()) return std::nullopt;
    // Leading zeros add nothing: "0001" is 1, however many there are.
    while (text.size() > 1 && text.front() == '0') text.remove_prefix(1);
    if (text.size() > 20) return std::nullopt;
    std::uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        const auto digit = static_cast<std::uint64_t>(c - '0');
        if (value > (max - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    return value;
}

}  // namespace locksim
