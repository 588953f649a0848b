#pragma once
// "What if" questions a reader can put to a scenario's own world, each with the command
// that answers it: the file's first pause shorter and longer, its lease shorter and
// longer. Each is a study of one seed (the scenario's) at half, the file's own and double
// the value (those the loader accepts), so the answer is a table: which designs still go
// wrong at which value.
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/schema/scenario.hpp"

namespace locksim {

struct WhatIf {
    std::string question;  // "What if the pause were shorter or longer?"
    std::string command;   // "locksim sweep FILE --start 1 --seeds 1 --vary faults/0/for=20s,40s,80s"
};

// Nothing for what a scenario does not have (no fixed pause, no lease).
std::vector<WhatIf> what_ifs(const Scenario& scenario, const std::string& program, const std::string& file,
                             std::uint64_t seed);

}  // namespace locksim
