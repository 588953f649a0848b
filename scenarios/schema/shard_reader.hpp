#pragma once
// The shard files `locksim merge` joins, written by `sweep --shard` and `explore --shard`,
// read as strictly as a scenario file (scenario_loader.hpp), through the same text layer
// (json_text.hpp): a key twice in one object, a field the format does not have, a field
// missing, a value of the wrong type, a number that is not a whole number of its range,
// text with a control character: each is refused in one line naming the file, line:column
// and the field, for a shard is evidence and a hand-edited one must not merge. What it
// then says is checked against itself (check_arithmetic, check_explore_block): a sweep
// shard's totals are the sums of its per-seed counts. Whether its runs happened as written
// is for `merge --verify` (runners/shard_verify.hpp).
#include <string>
#include <string_view>

#include "checks/sweep_merge.hpp"

namespace locksim {

// Sorts one file's text into `files`: a sweep's shard or an explore shard (complete), or a
// file that ends before its JSON does (incomplete: its task was stopped). Throws SweepError
// for anything else.
void add_shard_file(ShardFiles& files, const std::string& file, std::string_view text);

}  // namespace locksim
