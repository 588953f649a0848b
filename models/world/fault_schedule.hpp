#pragma once
// Turns a scenario's fault generators into the concrete faults of one run.
#include <cstdint>
#include <vector>

#include "models/world/world_spec.hpp"

namespace locksim {

// The faults the generators draw for `seed`, in the order they occur (ties: generator,
// then target order). The same seed gives the same schedule for every design.
std::vector<Fault> draw_fault_schedule(const std::vector<FaultGenerator>& generators, std::uint64_t seed);

// The probability that `generator` draws at least one fault in a run: 1 - e^(-n T / m)
// for n streams (its targets, or one at once), a window of T and a mean interval of m.
double strike_probability(const FaultGenerator& generator);

}  // namespace locksim
