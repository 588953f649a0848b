#pragma once
// Where a trace keeps its events' fields and their text: in blocks that are filled and never
// moved, so an event points at its fields for as long as the trace lives, and each text once,
// however many events carry it (a lock's key, a server's name, a label sent again).
#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "sim/trace.hpp"

namespace locksim {

class TraceStore {
public:
    // A copy of `fields` whose text points into this store.
    const StoredField* keep(std::span<const StoredField> fields);

private:
    std::string_view intern(std::string_view text);

    // Blocks start small and double up to a most: most runs are short, and a block freshly
    // taken from the system costs a page fault for each of its pages.
    static constexpr std::size_t most_fields_per_block = 4096;
    static constexpr std::size_t most_text_block_bytes = 64 * 1024;
    std::vector<std::unique_ptr<StoredField[]>> field_blocks_;
    std::size_t fields_per_block_ = 128;  // of the last block
    std::size_t fields_used_ = 128;       // in the last block
    std::vector<std::unique_ptr<char[]>> text_blocks_;
    std::size_t text_block_bytes_ = 2048;  // of the last block
    std::size_t text_used_ = 2048;         // in the last block
    // Views of the texts kept, into text_blocks_; never iterated.
    std::unordered_set<std::string_view> texts_;
};

}  // namespace locksim
