#include "models/effect_steps.hpp"

#include <fmt/format.h>

namespace locksim {

std::string joined_step_names(const std::vector<std::string>& names) {
    std::string joined;
    for (const auto& name : names) {
        if (!joined.empty()) joined += '\n';
        joined += name;
    }
    return joined;
}

std::vector<std::string> step_names_of(std::string_view joined) {
    std::vector<std::string> names;
    while (!joined.empty()) {
        const auto end = joined.find('\n');
        names.emplace_back(joined.substr(0, end));
        if (end == std::string_view::npos) break;
        joined.remove_prefix(end + 1);
    }
    return names;
}

std::string step_name(const std::vector<std::string>& names, std::int64_t step) {
    if (step >= 1 && static_cast<std::size_t>(step) <= names.size()) return names[static_cast<std::size_t>(step - 1)];
    return fmt::format("step {}", step);
}

}  // namespace locksim
