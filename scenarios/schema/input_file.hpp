#pragma once
// Every file locksim reads from disk — scenario files, the files of samples they name,
// shards for `merge` — comes through read_input_file, and only through it. A path on the
// command line may name anything: /dev/zero and /dev/urandom never end, a FIFO blocks until
// someone writes to it, and a file padded with a gigabyte of spaces is still "valid" JSON
// to a parser that reads it whole. So the reader
//
//   1. opens without blocking (O_NONBLOCK: a FIFO with no writer opens at once),
//   2. asks the opened file, not the path, what it is (fstat): only a regular file is read,
//      so the answer cannot change between the check and the read,
//   3. reads at most the caller's limit plus one byte: one byte more than the limit is
//      refused, whatever the file's size claimed, and memory stays bounded by the limit,
//   4. refuses a NUL byte anywhere: a JSON parser that reads text as a C string stops at
//      one, and whatever follows it would be silently ignored.
//
// Each refusal is an InputFileError whose message reads after "FILE: " (or
// "FILE:LINE:COLUMN: " for a NUL byte): callers put the file in front as they show it.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "scenarios/schema/json_positions.hpp"

namespace locksim {

// How much of a kind of file locksim reads, and why no more: for the message.
struct InputLimit {
    std::uint64_t bytes = 0;  // the most read; a file of bytes + 1 is refused
    std::string_view words;   // the same in words: "1 MiB"
    std::string_view why;     // "a scenario is a few kilobytes"
};

enum class InputProblem {
    unreadable,   // cannot be opened or read (errno's text in the message)
    directory,    // a folder: callers say what to give instead
    not_regular,  // a device, a FIFO, a socket
    too_big,      // more than the limit
    nul_byte,     // a NUL byte at `at`
};

class InputFileError : public std::runtime_error {
public:
    InputFileError(InputProblem problem, const std::string& message, std::optional<TextPosition> at = std::nullopt)
        : std::runtime_error(message), problem(problem), at(at) {}
    InputProblem problem;
    std::optional<TextPosition> at;  // the NUL byte's line and column (bytes, 1-based)
};

// The whole content of the regular file at `path`. Throws InputFileError as above.
std::string read_input_file(const std::string& path, const InputLimit& limit);

// The refusal of `size` bytes (digits, or "more than N") past `limit`, for text that came
// from elsewhere and is held to the same limit.
InputFileError input_too_big(std::string_view size, const InputLimit& limit);

// The error's one line: "FILE: message", or "FILE:LINE:COLUMN: message" for a NUL byte.
// `shown` is the file as the caller names it.
std::string input_error_line(std::string_view shown, const InputFileError& error);

}  // namespace locksim
