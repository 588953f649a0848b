#pragma once
// How many shards bring an exploration's runs under its limit: advice that holds for the
// shards as they are cut (checks/sweep_summary.hpp, shard_block: contiguous blocks of
// units, the i-th of n from ⌊U·(i−1)/n⌋ to ⌊U·i/n⌋), not for an even split the units'
// uneven costs never make.
#include <cstdint>
#include <optional>
#include <vector>

namespace locksim {

// A number of shards n such that every shard_block of `costs` (each unit's runs, in unit
// order) costs at most `limit`: the fewest from ⌈total / limit⌉ on within 64 tries, else
// the first of that count's doublings that passes (with n shards of their own, units
// always do); none when one unit alone costs more, or when 2^32 − 1 shards (the most
// --shard takes) do not pass.
std::optional<std::uint32_t> shards_that_pass(const std::vector<std::uint64_t>& costs, std::uint64_t limit);

}  // namespace locksim
