#pragma once
// The order a course teaches its scenarios in, for `locksim list` and `locksim report` alike:
// chapter by chapter (by a scenario's first chapter; those that name none last), and each
// after every scenario it assumes ("assumes" in its file); otherwise by name.
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "scenarios/schema/scenario.hpp"

namespace locksim {

// Scenarios whose "assumes" go round in a circle: no order puts each after the others.
class CourseOrderError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Indices into `scenarios`, in the course's order. A name assumed that no scenario here
// has is no constraint (a course of a few files); a circle throws CourseOrderError with a
// one-line message that names it.
std::vector<std::size_t> course_order(const std::vector<const Scenario*>& scenarios);

}  // namespace locksim
