#pragma once
// Every file the program writes (--output, --junit, report pages) appears whole or not at
// all. A task killed while writing (a Slurm time limit, a preempted pod) leaves no
// half-written shard behind for `merge`, nor half a page or JUnit file for CI to read.
//
// Each file is written to a temporary file created exclusively beside it (never opened
// through a link), flushed, then renamed over its name: a symbolic link planted at that
// name is replaced, never followed. A report's pages are written all or none: every
// temporary file first, then the renames; a failure on the way removes what it wrote and
// the folders it made. Folders inside a report folder are entered only if they are real
// folders, so a link planted there (DIR/x-steps -> /elsewhere) cannot send a page outside.
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

class OutputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// A file to write, its path relative to the folder it goes in, folders separated by "/":
// "gc-pause-40s.html", "gc-pause-40s-steps/d1-unfenced.html".
struct OutputFile {
    std::string path;
    std::string content;
};

// Writes every one of `files` into `folder` (created if missing), all of them or none.
// Throws OutputError with a one-line message, naming the `option` that gave the folder,
// on any failure, after removing whatever it had written or created.
void write_files_atomically(const std::string& folder, const std::vector<OutputFile>& files, std::string_view option);

// Before any work: refuses (OutputError, as above) a folder `relative` inside `folder` that
// exists and is a symbolic link or no folder, which writing would refuse only after it.
void refuse_linked_folder(const std::string& folder, const std::string& relative, std::string_view option);

// One file at `path`, whose folder must exist; as above.
void write_file_atomically(const std::string& path, std::string_view content, std::string_view option = "--output");

// Prints `text` on stdout, or with an --output path writes it there as above.
void deliver(const std::string& text, const std::optional<std::string>& output);

}  // namespace locksim
