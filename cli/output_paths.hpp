#pragma once
// Where a command will write, checked before it does any work: a sweep of hours must not
// end in "cannot create out/shard-3.json", and no output may replace what the command
// reads (`sweep s.json --output s.json` once replaced the scenario with its own results).
#include <string>
#include <string_view>
#include <vector>

#include "scenarios/schema/scenario.hpp"

namespace locksim {

// An output the command line names: a file (--output, --junit, shrink's --out) or a
// folder of pages (--report, report's --out), which is made if missing.
struct OutputTarget {
    std::string_view option;
    std::string path;
    bool folder = false;
    std::vector<std::string> pages;  // a folder's: the files it will receive, as far as known before the work
};

// Throws OutputError (one line: the option, the path, what is wrong) when an output could
// not be written — a file's folder missing or not writable, a folder where a file goes or
// a file where a folder goes — or is one of `inputs` (the same file by device and inode,
// or by resolved path) or another of `outputs`; a folder's pages count among the outputs.
void check_outputs(const std::vector<OutputTarget>& outputs, const std::vector<std::string>& inputs);

// What a loaded scenario read: its file and the files of samples it names.
std::vector<std::string> inputs_of(const Scenario& scenario);

}  // namespace locksim
