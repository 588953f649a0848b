#include "models/faults/drawn_amounts.hpp"

#include <cassert>

namespace locksim {

Duration DrawnAmounts::draw(std::string_view field, RandomStream& random) const {
    const DurationDistribution* distribution = find(field);
    assert(distribution != nullptr);
    return distribution->draw(random);
}

}  // namespace locksim
