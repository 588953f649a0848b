#pragma once
// What a scenario file expects of each design, in the checkers' terms: a metric compared
// with a number, and what the design's lock is for. The loader fills these in; the checks
// judge a run against them. Here, below the loader, so checks and reports need nothing of it.
#include <cstdint>
#include <string>

namespace locksim {

struct Expectation {
    enum class Comparison { equals, at_least, at_most };
    std::string metric;
    Comparison comparison = Comparison::equals;
    std::int64_t value = 0;
    bool implied = false;  // not written in the file: a correctness lock must never let these happen
};

// What a design's lock is for (seed §1). A correctness lock implies expectations of zero
// double charges and zero stale writes accepted, unless the file states its own; an
// efficiency lock's double runs are a cost to report, not a failure.
enum class LockPurpose { correctness, efficiency };

}  // namespace locksim
