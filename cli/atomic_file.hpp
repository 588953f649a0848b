#pragma once
// Every file the program writes (--output, --junit, report pages) appears whole or not at
// all. A task killed while writing (a Slurm time limit, a preempted pod) leaves no
// half-written shard behind for `merge`, nor half a page or JUnit file for CI to read.
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace locksim {

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Writes `content` to a temporary file beside `path`, flushes it to disk, then renames
// it over `path`. Throws OutputError with a one-line message, naming the `option` that
// gave the path, on any failure.
void write_file_atomically(const std::string& path, std::string_view content, std::string_view option = "--output");

// Prints `text` on stdout, or with an --output path writes it there as above.
void deliver(const std::string& text, const std::optional<std::string>& output);

// A directory for report pages: false after printing a one-line reason on stderr.
bool make_directory(const std::string& directory);

}  // namespace locksim
