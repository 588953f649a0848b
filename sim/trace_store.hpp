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
    // A copy of an event's values, whose text points into this store.
    const FieldWord* keep(const KindSpec& kind, const FieldWord* values, FieldKeys keys);

    // The bytes of its blocks, used or not, and of the set that finds a text: its buckets and
    // a node a text (a view, the next node's address and the text's hash).
    std::size_t bytes_held() const;

private:
    // The view of this store's copy of `text`, which stays where it is.
    const std::string_view* intern(std::string_view text);

    // Blocks start small and double up to a most: most runs are short, and a block freshly
    // taken from the system costs a page fault for each of its pages.
    static constexpr std::size_t most_fields_per_block = 4096;
    static constexpr std::size_t most_text_block_bytes = 64 * 1024;
    std::vector<std::unique_ptr<FieldWord[]>> field_blocks_;
    static constexpr std::size_t first_fields_per_block = 128;
    std::size_t fields_per_block_ = first_fields_per_block;  // of the last block
    std::size_t fields_used_ = first_fields_per_block;       // in the last block
    std::vector<std::unique_ptr<char[]>> text_blocks_;
    std::size_t text_block_bytes_ = 2048;  // of the last block
    std::size_t text_used_ = 2048;         // in the last block
    std::size_t field_bytes_ = 0;          // of every field block
    std::size_t text_bytes_ = 0;           // of every text block
    // Views of the texts kept, into text_blocks_; never iterated. A set's elements do not
    // move as it grows, so a kept value points at one.
    std::unordered_set<std::string_view> texts_;
};

}  // namespace locksim
