#include "reports/html/palette.hpp"

#include <array>

namespace locksim::palette {

std::string_view node_colour(std::size_t server_rank, bool is_server) {
    // Blue, orange, reddish purple, sky blue, yellow, black: Okabe–Ito without the two
    // that mean violation and protection.
    static constexpr std::array<std::string_view, 6> servers{"#0072B2", "#E69F00", "#CC79A7",
                                                             "#56B4E9", "#C9B200", "#000000"};
    return is_server ? servers[server_rank % servers.size()] : service;
}

}  // namespace locksim::palette
