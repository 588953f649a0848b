#pragma once
// A scenario as read from its file: one world in several designs, each with what it
// expects the run to show.
#include <cstdint>
#include <string>
#include <vector>

#include "models/world/world_spec.hpp"

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

struct Design {
    std::string name;
    WorldSpec world;  // the base world with this design's overrides applied
    LockPurpose purpose = LockPurpose::correctness;
    std::vector<Expectation> expectations;
};

struct Scenario {
    std::string file;  // as given on the command line
    std::string content_sha256;  // of the file's bytes: what a sweep says it ran, whatever the path
    std::string name;
    std::string description;
    std::string lesson;   // one line: what a learner should take away
    std::string section;  // the seed's section it tells, "3" or "3-4"; empty if none
    std::uint64_t seed = 0;
    std::vector<Design> designs;  // in file order
};

}  // namespace locksim
