#pragma once
// A decimal of the command line (--runs-per-day 0.5), read exactly as digits with at most six
// after the point, never through strtod, which takes "inf", "nan", "1e9" and "0x1p3". A
// number that is not one, or is outside the option's range, stops the command line with one
// line naming the option, the range and what was given.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cli/whole_number.hpp"  // CLI::App, CLI::Option, and how a message shows what was given

namespace locksim {

// `text` in millionths ("0.5" is 500000), from `least` to `most` millionths; else nullopt.
std::optional<std::uint64_t> millionths_in(std::string_view text, std::uint64_t least, std::uint64_t most);

// Adds option `name` to `command`, stored in `value` when given; CLI::ValidationError (exit 2)
// for anything but a decimal from `least` to `most` millionths.
CLI::Option* add_decimal(CLI::App& command, const std::string& name, double& value, const std::string& help,
                         std::uint64_t least, std::uint64_t most);

}  // namespace locksim
