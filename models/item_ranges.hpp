#pragma once
// A job's items as a trace writes them: ids in runs of consecutive numbers ("41-44,50"), so
// that a job of 100,000 customers numbered in order is a few bytes in every run's job.due.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

// The ids in their order, each run of consecutive ascending ids as "first-last".
std::string format_item_ranges(const std::vector<std::int64_t>& ids);

// The ids written by format_item_ranges, in their order; nullopt for text it never writes.
std::optional<std::vector<std::int64_t>> parse_item_ranges(std::string_view text);

}  // namespace locksim
