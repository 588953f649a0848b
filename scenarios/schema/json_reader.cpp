#include "scenarios/schema/json_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "scenarios/schema/sha256.hpp"
#include "sim/duration_text.hpp"
#include "sim/text_chars.hpp"

namespace locksim {
namespace {

// A value quoted in a message is cut in the middle past `limit` bytes: the message stays
// one readable line however long the value.
std::string clipped(std::string text, std::size_t limit = 120) {
    if (text.size() <= limit) return text;
    std::size_t head = limit * 2 / 3, tail = text.size() - limit / 3;
    while (head > 0 && (static_cast<unsigned char>(text[head]) & 0xC0) == 0x80) --head;  // whole UTF-8 characters
    while (tail < text.size() && (static_cast<unsigned char>(text[tail]) & 0xC0) == 0x80) ++tail;
    return text.substr(0, head) + fmt::format("…({} bytes)…", tail - head) + text.substr(tail);
}

// What sim/text_chars.hpp calls unshowable, and bytes that are not UTF-8, written as
// \xNN per byte: an error line is one line of text, and it does not recolour the user's
// terminal (ESC, or the C1 control U+009B) or reorder it.
std::string printable(std::string_view text) {
    std::string out;
    for (std::size_t at = 0; at < text.size();) {
        const Utf8Char c = decode_utf8(text, at);
        if (c.valid && !is_unshowable(c.code_point))
            out += text.substr(at, c.size);
        else
            for (std::size_t i = at; i < at + c.size; ++i)
                out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
        at += c.size;
    }
    return out;
}

std::string type_name(const Json& value) {
    if (value.is_string()) return fmt::format("the string {}", clipped(value.dump()));
    if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
    if (value.is_number()) return fmt::format("the number {}", value.dump());
    if (value.is_null()) return "null";
    if (value.is_array()) return "an array";
    return "an object";
}

}  // namespace

ScenarioError::ScenarioError(std::string_view line) : std::runtime_error(printable(line)) {}

std::string message_safe(std::string_view text, std::size_t limit) {
    return clipped(printable(text), limit);
}

JsonReader::JsonReader(const JsonSource& source, const Json& value, std::string pointer)
    : source_(&source), value_(&value), pointer_(std::move(pointer)) {}

std::string JsonReader::origin_pointer() const {
    if (source_->design_override != nullptr) {
        const Json::json_pointer path(pointer_);
        if (source_->design_override->contains(path)) return source_->design_pointer + pointer_;
    }
    return pointer_;
}

void JsonReader::fail(std::string_view message) const {
    const std::string where = origin_pointer();
    // A value from the base world can be wrong only in one design's merged world (a
    // design that renames the servers, say): say which.
    const bool design_context = source_->design_override != nullptr && !source_->design_override->empty() &&
                                !where.starts_with(source_->design_pointer);
    std::string location = source_->file;
    if (source_->positions != nullptr) {
        if (auto position = source_->positions->find(where))
            location += fmt::format(":{}:{}", position->line, position->column);
    }
    throw ScenarioError(fmt::format(
        "{}: {}: {}{}", location, where.empty() ? "/" : clipped(printable(where)), clipped(printable(message), 3000),
        design_context ? fmt::format(" (in design \"{}\")", clipped(printable(source_->design_name))) : ""));
}

void JsonReader::expect(bool condition, std::string_view what) const {
    if (!condition) fail(fmt::format("expected {}, got {}", what, type_name(*value_)));
}

bool JsonReader::has(std::string_view key) const {
    return value_->is_object() && value_->contains(key);
}

JsonReader JsonReader::operator[](std::string_view key) const {
    expect(value_->is_object(), "an object");
    auto found = value_->find(key);
    if (found == value_->end()) fail(fmt::format("missing required field \"{}\"", key));
    return JsonReader(*source_, *found, pointer_ + "/" + escape_pointer_token(key));
}

std::vector<JsonReader> JsonReader::elements() const {
    expect(value_->is_array(), "an array");
    std::vector<JsonReader> items;
    for (std::size_t i = 0; i < value_->size(); ++i)
        items.emplace_back(*source_, (*value_)[i], fmt::format("{}/{}", pointer_, i));
    return items;
}

std::vector<std::pair<std::string, JsonReader>> JsonReader::members() const {
    expect(value_->is_object(), "an object");
    std::vector<std::pair<std::string, JsonReader>> result;
    for (auto it = value_->begin(); it != value_->end(); ++it)
        result.emplace_back(it.key(),
                            JsonReader(*source_, it.value(), pointer_ + "/" + escape_pointer_token(it.key())));
    return result;
}

void JsonReader::allow_only(std::initializer_list<std::string_view> allowed) const {
    allow_only(std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

void JsonReader::allow_only(std::span<const std::string_view> allowed) const {
    expect(value_->is_object(), "an object");
    for (auto it = value_->begin(); it != value_->end(); ++it) {
        if (std::find(allowed.begin(), allowed.end(), it.key()) != allowed.end()) continue;
        const JsonReader unknown(*source_, it.value(), pointer_ + "/" + escape_pointer_token(it.key()));
        unknown.fail(fmt::format("unknown field \"{}\"; expected one of: {}", it.key(), fmt::join(allowed, ", ")));
    }
}

void JsonReader::note_data_file(const std::string& name, std::string_view bytes) const {
    if (source_->data_files != nullptr) (*source_->data_files)[name] = sha256_hex(bytes);
}

std::string JsonReader::string() const {
    expect(value_->is_string(), "a string");
    std::string text = value_->get<std::string>();
    if (const auto flaw = first_unshowable(text)) fail(fmt::format("{}, got {}", plain_text_expected, *flaw));
    return text;
}

std::int64_t JsonReader::integer() const {
    expect(value_->is_number_integer(), "a whole number");
    if (value_->is_number_unsigned() &&
        value_->get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        fail(fmt::format("number {} is too large", value_->dump()));
    return value_->get<std::int64_t>();
}

std::uint64_t JsonReader::unsigned_integer() const {
    expect(value_->is_number_integer(), "a whole number");
    if (!value_->is_number_unsigned()) fail(fmt::format("expected a number 0 or above, got {}", value_->dump()));
    return value_->get<std::uint64_t>();
}

double JsonReader::number() const {
    expect(value_->is_number(), "a number");
    return value_->get<double>();
}

bool JsonReader::boolean() const {
    expect(value_->is_boolean(), "true or false");
    return value_->get<bool>();
}

Duration JsonReader::duration(Duration most) const {
    expect(value_->is_string(), "a duration string such as \"40s\"");
    const auto parsed = parse_duration(value_->get<std::string>());
    if (const auto* error = std::get_if<std::string>(&parsed)) fail(*error);
    const Duration d = std::get<Duration>(parsed);
    if (d > most)
        fail(fmt::format("expected at most {}, got \"{}\"", format_duration(most), value_->get<std::string>()));
    return d;
}

Duration JsonReader::signed_duration() const {
    expect(value_->is_string(), "a duration string such as \"40s\" or \"-5ms\"");
    const std::string text = value_->get<std::string>();
    const bool negative = text.starts_with('-');
    const auto parsed = parse_duration(negative ? std::string_view(text).substr(1) : std::string_view(text));
    if (const auto* error = std::get_if<std::string>(&parsed)) fail(*error);
    const Duration magnitude = std::get<Duration>(parsed);
    if (magnitude > max_duration)
        fail(fmt::format("expected at most {} either way, got \"{}\"", format_duration(max_duration), text));
    return negative ? -magnitude : magnitude;
}

}  // namespace locksim
