#pragma once
// Reading one value of a scenario file, with errors that a person can act on:
//
//   gc-pause-40s.json:14:22: /faults/0/for: expected a duration such as "40s" ..., got "40 parsecs"
//
// A design's world is the base world with the design's overrides merged in. A reader
// walks the merged document but names the place the value came from: the design's
// override (/designs/fenced/lock/store) if it set the value, the base world otherwise.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenarios/schema/json_positions.hpp"
#include "sim/time.hpp"

namespace locksim {

// ordered_json keeps an object's members in file order: designs run and print in the
// order the author wrote them.
using Json = nlohmann::ordered_json;

// Text from a file made fit for a one-line error: what the rule for text refuses
// (control characters, noncharacters, bidirectional controls) and bytes that are not
// UTF-8 as \xNN, and cut in the middle past `limit` bytes.
std::string message_safe(std::string_view text, std::size_t limit = 120);

// The one rule for every text a scenario carries, every string and every member's name
// alike (what is_unshowable() in sim/text_chars.hpp refuses, and bytes that are not
// UTF-8): the start of the message that refuses one.
inline constexpr std::string_view plain_text_expected =
    "expected text without control characters (tabs, line breaks, escapes), noncharacters or bidirectional "
    "controls";

// Unusable input: the message is the whole line to print. Whatever in it cannot be shown
// (the name of a file found in a folder may hold an escape sequence) is escaped here, once
// for every message, as message_safe() does.
class ScenarioError : public std::runtime_error {
public:
    explicit ScenarioError(std::string_view line);
};

struct JsonSource {
    std::string file;
    const JsonPositions* positions = nullptr;
    const Json* design_override = nullptr;  // null when reading the base document
    std::string design_pointer;             // "/designs/fenced"
    std::string design_name;                // "fenced"
    // Every data file the scenario reads, by the name it is given, with the SHA-256 of
    // its bytes: a sweep's provenance must change when a file of samples does.
    std::map<std::string, std::string>* data_files = nullptr;
};

// No duration in a scenario may exceed this (a week); it keeps every sum of times far
// from int64 overflow.
constexpr Duration max_duration = hours(24 * 7);

class JsonReader {
public:
    JsonReader(const JsonSource& source, const Json& value, std::string pointer);

    const std::string& pointer() const { return pointer_; }
    const Json& json() const { return *value_; }
    // The file being read, as given: a file it names is relative to its directory.
    const std::string& file() const { return source_->file; }
    // Notes a data file read for this document (see JsonSource::data_files).
    void note_data_file(const std::string& name, std::string_view bytes) const;

    bool has(std::string_view key) const;
    JsonReader operator[](std::string_view key) const;                // a required field
    std::vector<JsonReader> elements() const;                         // an array's items
    std::vector<std::pair<std::string, JsonReader>> members() const;  // an object's, in file order
    // Fails on the first member not in `allowed`, listing what is.
    void allow_only(std::initializer_list<std::string_view> allowed) const;
    void allow_only(std::span<const std::string_view> allowed) const;

    std::string string() const;
    std::int64_t integer() const;
    std::uint64_t unsigned_integer() const;
    bool boolean() const;
    double number() const;  // any JSON number, for shape parameters such as a Pareto alpha
    Duration duration(Duration most = max_duration) const;  // "40s"; never negative, at most `most`
    Duration signed_duration() const;                       // "-5ms" allowed; at most max_duration either way

    [[noreturn]] void fail(std::string_view message) const;

private:
    void expect(bool condition, std::string_view what) const;
    std::string origin_pointer() const;

    const JsonSource* source_;
    const Json* value_;
    std::string pointer_;
};

}  // namespace locksim
