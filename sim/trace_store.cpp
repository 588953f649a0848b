#include "sim/trace_store.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace locksim {

const FieldWord* TraceStore::keep(const KindSpec& kind, const FieldWord* values, FieldKeys keys) {
    const std::size_t count = keys.size();
    if (count == 0) return nullptr;
    if (fields_used_ + count > fields_per_block_) {
        if (!field_blocks_.empty()) fields_per_block_ = std::min(2 * fields_per_block_, most_fields_per_block);
        field_blocks_.push_back(std::make_unique_for_overwrite<FieldWord[]>(fields_per_block_));
        field_bytes_ += fields_per_block_ * sizeof(FieldWord);
        fields_used_ = 0;
    }
    FieldWord* kept = field_blocks_.back().get() + fields_used_;
    fields_used_ += count;
    std::copy(values, values + count, kept);
    for (std::size_t i = 0; i < count; ++i)
        if (kind.fields[keys[i]].type == FieldType::text) kept[i].text = intern(*kept[i].text);
    return kept;
}

std::size_t TraceStore::bytes_held() const {
    std::size_t bytes = texts_.bucket_count() * sizeof(void*) + texts_.size() * (sizeof(std::string_view) + 16);
    return bytes + field_bytes_ + text_bytes_;
}

const std::string_view* TraceStore::intern(std::string_view text) {
    if (const auto found = texts_.find(text); found != texts_.end()) return &*found;
    char* copy = nullptr;
    if (text.size() > text_block_bytes_ / 4) {
        // A long text gets a block of its own, placed before the block being filled.
        auto own = std::make_unique_for_overwrite<char[]>(text.size());
        text_bytes_ += text.size();
        copy = own.get();
        text_blocks_.insert(text_blocks_.end() - (text_blocks_.empty() ? 0 : 1), std::move(own));
    } else {
        if (text_used_ + text.size() > text_block_bytes_) {
            if (!text_blocks_.empty()) text_block_bytes_ = std::min(2 * text_block_bytes_, most_text_block_bytes);
            text_blocks_.push_back(std::make_unique_for_overwrite<char[]>(text_block_bytes_));
            text_bytes_ += text_block_bytes_;
            text_used_ = 0;
        }
        copy = text_blocks_.back().get() + text_used_;
        text_used_ += text.size();
    }
    std::memcpy(copy, text.data(), text.size());
    return &*texts_.insert(std::string_view(copy, text.size())).first;
}

}  // namespace locksim
