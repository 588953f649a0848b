#include "scenarios/schema/json_text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

namespace locksim {
namespace {

// nlohmann reports how many bytes it had read, so the last byte of the offending token
// is at byte - 1. People look for the start of a token: for a string, its opening quote.
std::size_t offending_token_start(std::string_view text, std::size_t bytes_read) {
    std::size_t at = bytes_read == 0 ? 0 : bytes_read - 1;
    if (at >= text.size() || text[at] != '"' || at == 0) return at;
    for (std::size_t i = at; i-- > 0;) {
        if (text[i] != '"') continue;
        std::size_t backslashes = 0;
        while (i > backslashes && text[i - 1 - backslashes] == '\\') ++backslashes;
        if (backslashes % 2 == 0) return i;
    }
    return at;
}

// Walks over JSON strings for the raw-text scans below, which care only for what lies
// outside them: skip() is true while text[i] belongs to a string, quotes included, and
// steps over escaped characters.
class StringSkipper {
public:
    bool skip(std::string_view text, std::size_t& i) {
        const char c = text[i];
        if (in_string_) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                in_string_ = false;
            return true;
        }
        if (c != '"') return false;
        in_string_ = true;
        return true;
    }

private:
    bool in_string_ = false;
};

struct ShapeProblem {
    TextPosition at;
    std::string message;
};

std::optional<ShapeProblem> shape_problem(std::string_view text, const JsonTextLimits& limits) {
    if (text.starts_with("\xEF\xBB\xBF"))
        return ShapeProblem{{1, 1}, "/: the file starts with a byte order mark; save it as UTF-8 without one"};
    struct Open {
        bool object;
        std::size_t items;
    };
    std::vector<Open> open;
    StringSkipper strings;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (strings.skip(text, i)) continue;
        const char c = text[i];
        if (c == '{' || c == '[') {
            open.push_back(Open{c == '{', 1});
            if (open.size() > static_cast<std::size_t>(limits.depth))
                return ShapeProblem{
                    position_at_offset(text, i),
                    fmt::format("/: nested more than {} levels deep; a {} needs a handful", limits.depth, limits.kind)};
        } else if (c == '}' || c == ']') {
            if (!open.empty()) open.pop_back();
        } else if (c == ',' && !open.empty()) {
            const Open& here = open.back();
            const std::size_t most = here.object ? limits.object_members : limits.array_items;
            if (++open.back().items > most && most > 0)
                return ShapeProblem{position_at_offset(text, i),
                                    here.object ? fmt::format("/: an object with more than {} fields", most)
                                                : fmt::format("/: an array with more than {} items", most)};
        }
    }
    return std::nullopt;
}

// Where the first number too large for a double is (nlohmann says only that one was).
TextPosition first_overflowing_number(std::string_view text) {
    StringSkipper strings;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (strings.skip(text, i)) continue;
        const char c = text[i];
        if (c != '-' && (c < '0' || c > '9')) continue;
        std::size_t end = i;
        while (end < text.size() && std::strchr("+-0123456789.eE", text[end]) != nullptr && text[end] != '\0') ++end;
        const std::string token(text.substr(i, end - i));
        errno = 0;
        const double value = std::strtod(token.c_str(), nullptr);
        if (errno == ERANGE && (value > 1 || value < -1)) return position_at_offset(text, i);
        i = end - 1;
    }
    return TextPosition{1, 1};
}

}  // namespace

ParsedJson parse_json_text(std::string_view text, const std::string& file, const JsonTextLimits& limits) {
    if (auto problem = shape_problem(text, limits))
        throw ScenarioError(fmt::format("{}:{}:{}: {}", file, problem->at.line, problem->at.column, problem->message));
    Json document;
    try {
        document = Json::parse(text);
    } catch (const Json::out_of_range&) {
        const TextPosition at = first_overflowing_number(text);
        throw ScenarioError(
            fmt::format("{}:{}:{}: a number too large to represent (beyond about 1.8e308); {} "
                        "numbers are {} of modest size",
                        file, at.line, at.column, limits.kind, limits.numbers));
    } catch (const Json::parse_error& error) {
        const TextPosition at = position_at_offset(text, offending_token_start(text, error.byte));
        std::string reason = error.what();
        // nlohmann's message starts with "[json.exception.parse_error.101] parse error at line 1, column 5: ".
        if (auto colon = reason.find(": "); colon != std::string::npos) reason = reason.substr(colon + 2);
        // "last read" can quote a whole paragraph; its end is what locates the mistake.
        constexpr std::string_view last_read = "; last read: '";
        if (auto quoted = reason.find(last_read); quoted != std::string::npos) {
            const std::size_t start = quoted + last_read.size();
            const std::size_t end = reason.rfind('\'');
            if (end != std::string::npos && end > start + 40)
                reason = reason.substr(0, start) + "…" + reason.substr(end - 40);
        }
        // nlohmann reads one byte past the end when the text ran out.
        const bool cut_short = error.byte > text.size() || text.find_first_not_of(" \t\r\n") == std::string::npos;
        throw JsonSyntaxError(
            fmt::format("{}:{}:{}: not valid JSON: {}", file, at.line, at.column, message_safe(reason, 600)),
            cut_short);
    }
    JsonPositions positions = JsonPositions::scan(text);
    if (const auto& duplicate = positions.duplicate_key())
        throw ScenarioError(fmt::format("{}:{}:{}: {}: this field appears twice in the same object", file,
                                        duplicate->second.line, duplicate->second.column,
                                        message_safe(duplicate->first)));
    return ParsedJson{std::move(document), std::move(positions)};
}

}  // namespace locksim
