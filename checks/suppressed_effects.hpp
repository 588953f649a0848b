#pragma once
// What makes a replayed charge lost work instead of a protection, for the checker that
// counts it and the reports that draw it.
#include <string>

#include "models/vocabulary.hpp"
#include "sim/trace.hpp"

namespace locksim {

// A provider.replayed that returned a charge made for another customer or period: the
// idempotency key did not tell the two apart, so the request's own charge was not made.
// Never a protection; a replay of the request's own customer and period is one.
bool replays_another_effect(const TraceEvent& replayed);

// What the charge a replay returned was made for, as told beside the request's own:
// "for 2026-10#1", or "for customer 7 in 2026-10#1" when another customer's.
std::string returned_effect_for(const TraceEvent& replayed, const Vocabulary& words);

}  // namespace locksim
