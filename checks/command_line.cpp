#include "checks/command_line.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "sim/text_chars.hpp"

namespace locksim {
namespace {

bool showable(std::string_view word) {
    for (std::size_t at = 0; at < word.size();) {
        const Utf8Char c = decode_utf8(word, at);
        if (!c.valid || is_unshowable(c.code_point)) return false;
        at += c.size;
    }
    return true;
}

// $'…': backslash and quote escaped, every byte of an unshowable character as \xNN.
std::string ansi_c_quoted(std::string_view word) {
    std::string quoted = "$'";
    for (std::size_t at = 0; at < word.size();) {
        const Utf8Char c = decode_utf8(word, at);
        if (c.valid && !is_unshowable(c.code_point)) {
            const std::string_view text = word.substr(at, c.size);
            quoted += text == "\\" ? "\\\\" : text == "'" ? "\\'" : std::string(text);
        } else {
            for (std::size_t i = at; i < at + c.size; ++i)
                quoted += fmt::format("\\x{:02x}", static_cast<unsigned char>(word[i]));
        }
        at += c.size;
    }
    return quoted + "'";
}

}  // namespace

std::string shell_quoted(const std::string& word) {
    const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view("-_./=:,+@%").find(c) != std::string_view::npos;
    });
    if (plain) return word;
    if (!showable(word)) return ansi_c_quoted(word);
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

std::string replay_command(const std::string& program, const std::string& file, std::uint64_t seed,
                           const std::optional<std::string>& design, const std::optional<std::string>& faults,
                           std::optional<std::uint64_t> given_fault) {
    return fmt::format("{} run {} --seed {}{}{}{}", shell_quoted(program), shell_quoted(file), seed,
                       design ? " --design " + shell_quoted(*design) : "",
                       faults ? " --faults " + shell_quoted(*faults) : "",
                       given_fault ? fmt::format(" --given-fault {}", *given_fault) : "");
}

}  // namespace locksim
