#include "cli/decimal_number.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/whole_number.hpp"

namespace locksim {
namespace {

// Millionths as the option's range prints them: 0.000001, 0.5, 86400000.
std::string decimal_text(std::uint64_t millionths) {
    std::string text = fmt::format("{}.{:06}", millionths / 1'000'000, millionths % 1'000'000);
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
    return text;
}

}  // namespace

std::optional<std::uint64_t> millionths_in(std::string_view text, std::uint64_t least, std::uint64_t most) {
    const std::size_t point = text.find('.');
    const std::string_view whole = text.substr(0, point);
    const std::string_view fraction = point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
    if (whole.empty() || (point != std::string_view::npos && (fraction.empty() || fraction.size() > 6)))
        return std::nullopt;
    const std::optional<std::uint64_t> units = whole_number_in(whole, 0, most / 1'000'000);
    if (!units) return std::nullopt;
    std::uint64_t millionths = *units * 1'000'000;
    std::uint64_t place = 100'000;
    for (const char digit : fraction) {
        if (digit < '0' || digit > '9') return std::nullopt;
        millionths += static_cast<std::uint64_t>(digit - '0') * place;
        place /= 10;
    }
    if (millionths < least || millionths > most) return std::nullopt;
    return millionths;
}

CLI::Option* add_decimal(CLI::App& command, const std::string& name, double& value, const std::string& help,
                         std::uint64_t least, std::uint64_t most) {
    return command
        .add_option_function<std::string>(
            name,
            [shown = option_name(name), least, most, &value](const std::string& text) {
                const std::optional<std::uint64_t> millionths = millionths_in(text, least, most);
                if (!millionths)
                    throw CLI::ValidationError(fmt::format(
                        "{}: expected a number from {} to {}, with at most six digits after the point, got \"{}\"",
                        shown, decimal_text(least), decimal_text(most), shown_input(text)));
                value = static_cast<double>(*millionths) / 1e6;
            },
            help)
        ->type_name("NUMBER");
}

}  // namespace locksim
