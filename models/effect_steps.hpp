#pragma once
// The names of an item's effect steps as the trace carries them (job.due's "step_names"):
// one text, the names one per line. A scenario's text never holds a line break (the loader
// refuses control characters), so the lines are the names.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

std::string joined_step_names(const std::vector<std::string>& names);
std::vector<std::string> step_names_of(std::string_view joined);
// Step `step` (from 1) by its name, "write the new index"; "step 4" past the names.
std::string step_name(const std::vector<std::string>& names, std::int64_t step);

}  // namespace locksim
