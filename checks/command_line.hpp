#pragma once
// The commands locksim prints for a person to run again (replay a failing seed, rerun a
// shard): each word as a POSIX shell reads it back.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace locksim {

// Plain words stay plain, anything else is single-quoted.
inline std::string shell_quoted(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
    });
    if (plain) return word;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// `locksim run FILE --seed N [--design D] [--faults JSON]`, as `program` was invoked.
std::string replay_command(const std::string& program, const std::string& file, std::uint64_t seed,
                           const std::optional<std::string>& design = std::nullopt,
                           const std::optional<std::string>& faults = std::nullopt);

}  // namespace locksim
