#pragma once
// A file of observed durations that a scenario names ({"observed": "gc-pauses.txt"}): one
// duration per line, read once while the scenario loads, so a run depends on the file's
// contents then and on nothing else.
#include <optional>
#include <string>
#include <vector>

#include "scenarios/schema/json_reader.hpp"
#include "sim/time.hpp"

namespace locksim {

// Reads `name`, relative to the directory of the scenario file that `field` belongs to (or
// absolute). Each line is a duration as scenario files write them ("12ms", "4.2s"), or,
// when `unit` is given ("ms"), a bare number in that unit; blank lines and lines starting
// with # are skipped. Fails at `field`, naming the data file and its line, on a file that
// cannot be read, a line that is no duration, or a file without samples.
std::vector<Duration> read_sample_file(const JsonReader& field, const std::string& name,
                                       const std::optional<std::string>& unit);

// Where a scenario file `scenario_file` finds the file of samples it names `name`.
std::string sample_file_path(const std::string& scenario_file, const std::string& name);

// The units a bare number may be given in: those of duration text.
bool is_duration_unit(const std::string& unit);

}  // namespace locksim
