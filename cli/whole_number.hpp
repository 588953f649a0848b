#pragma once
// Every whole number of the command line (--seeds, --start, --jobs, --max-events, …) is read
// by parse_whole_number (sim/whole_number.hpp), never by CLI11's conversion, which takes
// "-1" for 2^64 - 1, "0x10" for 16 and 2^64 for 2^64 - 1. A number that is not one, or is
// outside the option's range, stops the command line with one line naming the option, the
// range and what was given.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "sim/whole_number.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace locksim {

// The option's first long name, as messages call it: "--jobs" of "--jobs,-j".
std::string option_name(const std::string& names);

// What was given, as a message quotes it: its first 40 bytes, plain ASCII (others as \xNN),
// "…" after it if there was more.
std::string shown_input(std::string_view text);

// "--seeds: expected a whole number from 1 to 18446744073709551615, got \"-1\"".
std::string whole_number_error(std::string_view option, std::string_view text, std::uint64_t least, std::uint64_t most);

// `text` read as a whole number from `least` to `most`, or nullopt.
std::optional<std::uint64_t> whole_number_in(std::string_view text, std::uint64_t least, std::uint64_t most);

// Adds option `name` (such as "--seeds" or "--jobs,-j") to `command`, stored in `value` when
// given; CLI::ValidationError (exit 2) for anything but a whole number in [least, most].
CLI::Option* add_whole_number(CLI::App& command, const std::string& name, std::uint64_t& value, const std::string& help,
                              std::uint64_t least = 0, std::uint64_t most = std::numeric_limits<std::uint64_t>::max());
CLI::Option* add_whole_number(CLI::App& command, const std::string& name, unsigned& value, const std::string& help,
                              std::uint64_t least = 0, std::uint64_t most = std::numeric_limits<unsigned>::max());
CLI::Option* add_whole_number(CLI::App& command, const std::string& name, std::optional<std::uint64_t>& value,
                              const std::string& help, std::uint64_t least = 0,
                              std::uint64_t most = std::numeric_limits<std::uint64_t>::max());

}  // namespace locksim
