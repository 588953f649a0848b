#include "models/item_ranges.hpp"

#include <fmt/format.h>

#include <charconv>

namespace locksim {

std::string format_item_ranges(const std::vector<std::int64_t>& ids) {
    std::string text;
    for (std::size_t first = 0; first < ids.size();) {
        std::size_t last = first;
        while (last + 1 < ids.size() && ids[last] != INT64_MAX && ids[last + 1] == ids[last] + 1) ++last;
        if (!text.empty()) text += ',';
        text += last == first ? fmt::format("{}", ids[first]) : fmt::format("{}-{}", ids[first], ids[last]);
        first = last + 1;
    }
    return text;
}

namespace {

// One id at the front of `text`, which it consumes: a minus sign belongs to the number only
// where a number may start.
std::optional<std::int64_t> take_id(std::string_view& text) {
    std::int64_t id = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), id);
    if (error != std::errc() || end == text.data()) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    return id;
}

}  // namespace

std::optional<std::vector<std::int64_t>> parse_item_ranges(std::string_view text) {
    std::vector<std::int64_t> ids;
    while (!text.empty()) {
        const auto first = take_id(text);
        if (!first) return std::nullopt;
        std::int64_t last = *first;
        if (!text.empty() && text.front() == '-') {
            text.remove_prefix(1);
            const auto end = take_id(text);
            if (!end || *end <= *first) return std::nullopt;
            last = *end;
        }
        for (std::int64_t id = *first;; ++id) {
            ids.push_back(id);
            if (id == last) break;
        }
        if (text.empty()) break;
        if (text.front() != ',') return std::nullopt;
        text.remove_prefix(1);
        if (text.empty()) return std::nullopt;
    }
    return ids;
}

}  // namespace locksim
