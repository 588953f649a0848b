#pragma once
// Where two designs' runs of one scenario part ways in what they did to the world. The
// runs share the seed and the faults; their protocols differ from the start (a fenced
// design claims each row before it charges), so they are compared by their effects alone,
// in order: each charge, each refused or replayed charge, each write a row refused, each
// customer skipped. The first effect that differs is where the designs part.
#include <optional>

#include "sim/trace.hpp"

namespace locksim {

struct Divergence {
    Instant at;                          // the earlier of the two differing effects
    const TraceEvent* first = nullptr;   // in the first trace (none: it had no more effects)
    const TraceEvent* second = nullptr;  // in the second
};

// Nullopt when the two runs had the same effects in the same order.
std::optional<Divergence> first_divergence(const Trace& first, const Trace& second);

}  // namespace locksim
