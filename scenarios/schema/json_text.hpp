#pragma once
// JSON text as locksim's inputs hold it, parsed with the position of every value
// (json_positions.hpp), and refused as a whole, in one line naming the file and
// line:column, when it is no document to walk: not JSON, a number beyond a double, a key
// twice in one object (nlohmann would keep the last silently), or a shape far beyond what
// such a file needs (nesting, members), refused before a walk of it could be slow or deep.
// Scenario files (and `run --faults`) and the shards `merge` reads come through here, each
// kind of file with its own limits; their size is their reader's to bound (input_file.hpp).
#include <cstddef>
#include <string>
#include <string_view>

#include "scenarios/schema/json_positions.hpp"
#include "scenarios/schema/json_reader.hpp"

namespace locksim {

struct JsonTextLimits {
    std::string_view kind;           // "scenario": what the messages call the file
    std::string_view numbers;        // "counts, seeds and factors": what its numbers are
    int depth = 0;                   // levels of nesting
    std::size_t object_members = 0;  // the JSON library's ordered objects are slow to search when large
    std::size_t array_items = 0;     // 0: any number
};

struct ParsedJson {
    Json document;
    JsonPositions positions;
};

// Text that is not one JSON document. `cut_short`: nothing was wrong until the text ran out
// (or there was none): a file whose writer was stopped, as `merge` tells a killed shard.
class JsonSyntaxError : public ScenarioError {
public:
    JsonSyntaxError(const std::string& message, bool cut_short) : ScenarioError(message), cut_short(cut_short) {}
    bool cut_short;
};

// The text as JSON with the position of every value, or a ScenarioError (JsonSyntaxError
// for text that is not JSON) whose message is the line to print, starting with `file`.
ParsedJson parse_json_text(std::string_view text, const std::string& file, const JsonTextLimits& limits);

}  // namespace locksim
