#pragma once
#include <cstdint>

namespace locksim {

// Odds as integers, "1 in 100": no float probabilities anywhere near a run.
struct Odds {
    std::uint64_t numerator = 0;
    std::uint64_t denominator = 1;
    bool never() const { return numerator == 0; }
};

}  // namespace locksim
