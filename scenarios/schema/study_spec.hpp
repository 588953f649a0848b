#pragma once
// A scenario's "study" block: the parameter study its lesson belongs with, the grid that
// `locksim sweep FILE --seeds N --vary FIELD=V1,V2,…` would run, which the course draws as
// the lesson's study page:
//
//   "study": {"seeds": 500, "vary": {"lock.ttl": ["2s", "10s", "30s", "2m"]}}
#include <cstdint>
#include <vector>

#include "checks/study.hpp"

namespace locksim {

struct StudySpec {
    SeedBlock seeds;                  // run at every point of the grid; from 1 unless "start" says otherwise
    std::vector<VariedField> fields;  // in file order, each as `--vary` would give it
};

// The most seeds a study block may run at each point of its grid.
constexpr std::uint64_t max_study_block_seeds = 1'000'000;
// The most runs a study block may make in all, at every point of its grid.
constexpr std::uint64_t max_study_block_runs = 2'000'000;

}  // namespace locksim
