#pragma once
// The lock options that belong to some stores only, as a scenario file names them. Each
// store's registry entry lists those it takes; naming one on another store is an error, not
// a silently ignored field, and the error says which stores take it and why the others do
// not.
#include <span>
#include <string_view>

namespace locksim {

struct LockOption {
    std::string_view field;  // "replicas"
    // Why the stores that lack it do, for the error (empty: nothing to add). The text may
    // name {stores_with_tokens}: the stores whose own tokens rise with every grant.
    std::string_view others_lack_it;
};

// In the order the loader lists a lock's fields.
std::span<const LockOption> all_lock_options();

// The option of that field, or null if no store has one.
const LockOption* find_lock_option(std::string_view field);

}  // namespace locksim
