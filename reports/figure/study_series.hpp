#pragma once
// The lines of a study chart: for one varied field, a series per design and, when other
// fields vary too, per combination of their values ("as-deployed, mean_interval=5s"), each
// with a design's tally at every value of the field.
#include <string>
#include <vector>

#include "checks/study.hpp"

namespace locksim {

struct StudySeries {
    std::string design;
    std::string others;  // "mean_interval=5s, renew=3s": the other fields' values; empty with one field
    // Per value of the charted field, the design's tally at that point; nullptr where it
    // ran no seeds.
    std::vector<const DesignTally*> tallies;

    // "as-deployed, mean_interval=5s".
    std::string label() const { return others.empty() ? design : design + ", " + others; }
};

// Design-major: every combination of the other fields for the first design (in grid
// order), then for the next. Points into `study`, which must outlive the result.
std::vector<StudySeries> study_series(const Study& study, std::size_t field);

// The shortest trailing part of each field's path that no other varied field ends with:
// "mean_interval" for fault_generators/0/mean_interval beside lock.ttl, but
// "0/mean_interval" beside fault_generators/1/mean_interval.
std::vector<std::string> short_field_names(const std::vector<VariedField>& fields);

}  // namespace locksim
