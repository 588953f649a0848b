#include "reports/html/palette.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace locksim::palette {

std::string_view node_colour(std::size_t server_rank, bool is_server) {
    // Blue, orange, reddish purple, sky blue, yellow, black: Okabe–Ito without the two
    // that mean violation and protection.
    static constexpr std::array<std::string_view, 6> servers{"#0072B2", "#E69F00", "#CC79A7",
                                                             "#56B4E9", "#C9B200", "#000000"};
    return is_server ? servers[server_rank % servers.size()] : service;
}

namespace {

// WCAG 2 relative luminance of an sRGB "#RRGGBB".
double luminance(std::string_view colour) {
    const auto channel = [&](std::size_t at) {
        const double value = std::stoi(std::string(colour.substr(at, 2)), nullptr, 16) / 255.0;
        return value <= 0.04045 ? value / 12.92 : std::pow((value + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

}  // namespace

double contrast(std::string_view a, std::string_view b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

std::string_view text_on(std::string_view colour) {
    return contrast(colour, "#FFFFFF") >= 4.5 ? std::string_view("#FFFFFF") : ink;
}

}  // namespace locksim::palette
