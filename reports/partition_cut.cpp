#include "reports/partition_cut.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>

#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

std::vector<std::string> names_on(std::string_view side) {
    std::vector<std::string> names;
    std::size_t from = 0;
    while (from < side.size()) {
        const std::size_t comma = std::min(side.find(", ", from), side.size());
        names.emplace_back(side.substr(from, comma - from));
        from = comma + 2;
    }
    return names;
}

bool among(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

bool PartitionCut::cuts(const std::string& sender, const std::string& receiver) const {
    if (among(cut_off, sender) && among(from, receiver)) return true;
    return !one_way && among(from, sender) && among(cut_off, receiver);
}

std::string PartitionCut::words() const {
    if (one_way) return fmt::format("messages from {} to {} cut", fmt::join(cut_off, ", "), fmt::join(from, ", "));
    return fmt::format("{} cut off from {}", fmt::join(cut_off, ", "), fmt::join(from, ", "));
}

std::string PartitionCut::healed_words() const {
    if (one_way)
        return fmt::format("messages from {} to {} pass again", fmt::join(cut_off, ", "), fmt::join(from, ", "));
    return fmt::format("{} {} {} again", fmt::join(cut_off, ", "), cut_off.size() == 1 ? "reaches" : "reach",
                       fmt::join(from, ", "));
}

std::optional<PartitionCut> partition_cut(const TraceEvent& event) {
    if (event.kind != trace_kind::network_partitioned && event.kind != trace_kind::network_healed) return std::nullopt;
    if (!event.has("cut")) return std::nullopt;
    const std::string_view sides = event.text("cut");
    const std::size_t slash = sides.find(" / ");
    if (slash == std::string_view::npos) return std::nullopt;
    return PartitionCut{names_on(sides.substr(0, slash)), names_on(sides.substr(slash + 3)), event.flag("one_way")};
}

}  // namespace locksim
