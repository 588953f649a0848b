#include "reports/html/outcome_badge.hpp"

#include <fmt/format.h>

#include "reports/html/markup.hpp"

namespace locksim {

std::string badge(std::string_view tone, const std::string& text) {
    return fmt::format("<span class=\"outcome outcome-{}\">{}</span>", tone, escaped(text));
}

}  // namespace locksim
