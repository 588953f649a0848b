#pragma once
// The commands locksim prints for a person to run again (replay a failing seed, rerun a
// shard): each word as a POSIX shell reads it back.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace locksim {

// Plain words stay plain, anything else is single-quoted; a word holding what a terminal
// would act on (an escape sequence in a file's name, say) or bytes that are not UTF-8 is
// written $'…' with those bytes as \xNN, which bash, zsh and POSIX sh (2024) read back.
std::string shell_quoted(const std::string& word);

// `locksim run FILE --seed N [--design D] [--faults JSON] [--given-fault G]`, as `program`
// was invoked.
std::string replay_command(const std::string& program, const std::string& file, std::uint64_t seed,
                           const std::optional<std::string>& design = std::nullopt,
                           const std::optional<std::string>& faults = std::nullopt,
                           std::optional<std::uint64_t> given_fault = std::nullopt);

}  // namespace locksim
