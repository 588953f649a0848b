#include "scenarios/schema/sample_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>
#include <string_view>
#include <variant>

#include "scenarios/schema/input_file.hpp"
#include "sim/duration_text.hpp"
#include "sim/observed_distribution.hpp"

namespace locksim {
namespace {

constexpr std::array<std::string_view, 7> units{"ns", "us", "ms", "s", "m", "min", "h"};

// A million samples of "123.456789ms" and a comment or two; a bigger file is a mistake
// (the wrong file, or a log rather than the durations taken from it).
constexpr InputLimit sample_file_limit{64 << 20, "64 MiB", "a file of samples is read whole"};

std::string_view trimmed(std::string_view line) {
    const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!line.empty() && blank(line.front())) line.remove_prefix(1);
    while (!line.empty() && blank(line.back())) line.remove_suffix(1);
    return line;
}

// "12", "12.5": digits, and digits after a point if there is one.
bool is_decimal_number(std::string_view text) {
    const auto digits = [](std::string_view part) {
        return !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    const auto point = text.find('.');
    return digits(text.substr(0, point)) && (point == std::string_view::npos || digits(text.substr(point + 1)));
}

// A file of samples is named by the scenario, which may come from someone else: an error
// quotes a line only as far as a duration goes, so that naming /etc/shadow or
// /proc/self/environ prints none of it. A line that does not begin as a number is
// described, not quoted; one longer than any duration is quoted by its first characters.
std::optional<std::string> unquotable(std::string_view text) {
    constexpr std::size_t longest_duration = 32;  // "9223372036854775807ns" is 21
    constexpr std::size_t shown_prefix = 12;
    const char first = text.front();
    if (!((first >= '0' && first <= '9') || first == '.' || first == '+' || first == '-'))
        return fmt::format(
            "expected a duration such as \"12ms\" or \"4.2s\", got a line of {} characters that does not begin "
            "with a number (is this a file of durations?)",
            text.size());
    if (text.size() > longest_duration)
        return fmt::format("expected one duration on the line, got {} characters beginning \"{}…\"", text.size(),
                           message_safe(text.substr(0, shown_prefix)));
    return std::nullopt;
}

// The duration on one line, or what is wrong with it.
DurationParse parse_sample(std::string_view text, const std::optional<std::string>& unit, const std::string& name) {
    if (std::optional<std::string> problem = unquotable(text)) return *problem;
    if (unit) {
        if (!is_decimal_number(text))
            return fmt::format("expected a bare number of {} (as \"unit\" says), such as \"12.5\", got \"{}\"", *unit,
                               message_safe(text));
        return parse_duration(std::string(text) + *unit);
    }
    if (is_decimal_number(text))
        return fmt::format(
            "expected a duration such as \"12ms\" or \"4.2s\", got the bare number \"{}\"; for a column of bare "
            "numbers, give their unit: {{\"observed\": {{\"file\": \"{}\", \"unit\": \"ms\"}}}}",
            text, message_safe(name));
    return parse_duration(text);
}

}  // namespace

std::string sample_file_path(const std::string& scenario_file, const std::string& name) {
    return (std::filesystem::path(scenario_file).parent_path() / name).string();
}

bool is_duration_unit(const std::string& unit) {
    return std::find(units.begin(), units.end(), unit) != units.end();
}

std::vector<Duration> read_sample_file(const JsonReader& field, const std::string& name,
                                       const std::optional<std::string>& unit) {
    if (name.empty()) field.fail("expected the name of a file of durations, one per line, such as \"gc-pauses.txt\"");
    const std::string path = sample_file_path(field.file(), name);
    const std::string shown = message_safe(path);
    std::string content;
    try {
        content = read_input_file(path, sample_file_limit);
    } catch (const InputFileError& error) {
        if (error.problem == InputProblem::directory)
            field.fail(fmt::format("{} is a directory; expected a file of durations, one per line", shown));
        field.fail(input_error_line(shown, error));
    }
    field.note_data_file(name, content);

    std::vector<Duration> samples;
    std::size_t line_number = 0;
    for (std::size_t start = 0; start < content.size();) {
        const std::size_t end = std::min(content.find('\n', start), content.size());
        const std::string_view line = trimmed(std::string_view(content).substr(start, end - start));
        start = end + 1;
        ++line_number;
        if (line.empty() || line.starts_with('#')) continue;
        const DurationParse parsed = parse_sample(line, unit, name);
        if (const auto* problem = std::get_if<std::string>(&parsed))
            field.fail(fmt::format("{}:{}: {}", shown, line_number, *problem));
        const Duration sample = std::get<Duration>(parsed);
        if (sample > max_duration)
            field.fail(fmt::format("{}:{}: expected at most {}, got \"{}\"", shown, line_number,
                                   format_duration(max_duration), message_safe(line)));
        if (samples.size() == max_samples)
            field.fail(fmt::format("{}:{}: more than {} samples; summarize them as a histogram", shown, line_number,
                                   max_samples));
        samples.push_back(sample);
    }
    if (samples.empty()) field.fail(fmt::format("{} holds no samples: every line is blank or a # comment", shown));
    return samples;
}

}  // namespace locksim
