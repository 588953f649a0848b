#pragma once
// A generator's amounts, by member: each draw reads them in the order its family's
// draw() asks, from the generator's stream for the target.
#include <map>
#include <string>
#include <string_view>

#include "sim/distribution.hpp"
#include "sim/random.hpp"

namespace locksim {

class DrawnAmounts {
public:
    void set(std::string_view field, DurationDistribution distribution) {
        by_field_.insert_or_assign(std::string(field), distribution);
    }
    bool has(std::string_view field) const { return by_field_.find(field) != by_field_.end(); }
    // REQUIRES: the generator read `field` (the family asked for it when it was read).
    Duration draw(std::string_view field, RandomStream& random) const;
    // The distribution of `field`, if the generator has one.
    const DurationDistribution* find(std::string_view field) const {
        const auto found = by_field_.find(field);
        return found == by_field_.end() ? nullptr : &found->second;
    }

private:
    std::map<std::string, DurationDistribution, std::less<>> by_field_;
};

}  // namespace locksim
