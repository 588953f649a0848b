#pragma once
// A fault written back as a scenario file writes it (shrink, explore's replay lines):
// each family says its members in file order; the writer knows the format.
#include <string>
#include <string_view>
#include <vector>

#include "sim/network.hpp"
#include "sim/time.hpp"

namespace locksim {

class FaultWriter {
public:
    virtual ~FaultWriter() = default;

    // A node's name, or a role (holder_role, …) written as {"role": "holder"}.
    virtual void target(std::string_view field, const std::string& target) = 0;
    virtual void sides(std::string_view field, const std::vector<std::string>& a,
                       const std::vector<std::string>& b) = 0;
    virtual void link(std::string_view field, const std::string& from, const std::string& to) = 0;
    virtual void instant(std::string_view field, Instant at) = 0;
    virtual void duration(std::string_view field, Duration value) = 0;
    virtual void odds(std::string_view field, Odds odds) = 0;
    virtual void text(std::string_view field, const std::string& text) = 0;
    virtual void flag(std::string_view field, bool value) = 0;
};

}  // namespace locksim
