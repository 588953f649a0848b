#include "cli/whole_number.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <cassert>
#include <functional>

namespace locksim {
namespace {

CLI::Option* add(CLI::App& command, const std::string& name, const std::string& help, std::uint64_t least,
                 std::uint64_t most, std::function<void(std::uint64_t)> store) {
    return command
        .add_option_function<std::string>(
            name,
            [shown = option_name(name), least, most, store](const std::string& text) {
                const std::optional<std::uint64_t> value = whole_number_in(text, least, most);
                if (!value) throw CLI::ValidationError(whole_number_error(shown, text, least, most));
                store(*value);
            },
            help)
        ->type_name("UINT");
}

}  // namespace

std::string option_name(const std::string& names) {
    return names.substr(0, names.find(','));
}

std::string shown_input(std::string_view text) {
    // Quoted short, as plain ASCII: no digit is anything else.
    std::string shown;
    for (const char c : text.substr(0, 40)) {
        const auto byte = static_cast<unsigned char>(c);
        shown += byte < 0x20 || byte >= 0x7f ? fmt::format("\\x{:02x}", byte) : std::string(1, c);
    }
    if (text.size() > 40) shown += "…";
    return shown;
}

std::string whole_number_error(std::string_view option, std::string_view text, std::uint64_t least,
                               std::uint64_t most) {
    return fmt::format("{}: expected a whole number from {} to {}, got \"{}\"", option, least, most, shown_input(text));
}

std::optional<std::uint64_t> whole_number_in(std::string_view text, std::uint64_t least, std::uint64_t most) {
    const std::optional<std::uint64_t> value = parse_whole_number(text, most);
    if (!value || *value < least) return std::nullopt;
    return value;
}

CLI::Option* add_whole_number(CLI::App& command, const std::string& name, std::uint64_t& value, const std::string& help,
                              std::uint64_t least, std::uint64_t most) {
    return add(command, name, help, least, most, [&value](std::uint64_t given) { value = given; });
}

CLI::Option* add_whole_number(CLI::App& command, const std::string& name, unsigned& value, const std::string& help,
                              std::uint64_t least, std::uint64_t most) {
    assert(most <= std::numeric_limits<unsigned>::max());
    return add(command, name, help, least, most,
               [&value](std::uint64_t given) { value = static_cast<unsigned>(given); });
}

CLI::Option* add_whole_number(CLI::App& command, const std::string& name, std::optional<std::uint64_t>& value,
                              const std::string& help, std::uint64_t least, std::uint64_t most) {
    return add(command, name, help, least, most, [&value](std::uint64_t given) { value = given; });
}

}  // namespace locksim
