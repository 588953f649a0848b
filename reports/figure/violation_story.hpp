#pragma once
#include <string>

#include "models/vocabulary.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "sim/trace.hpp"

namespace locksim {

// Adds to each violation's explanation the write that broke the rule, who sent it and
// when, and why: how long after the store had let that sender's lock go, and the fault or
// store event that took it (fault_causes.hpp). Every cause follows " because ".
void explain_violations(SequenceFigure& figure, const Trace& trace);

// Gives every protection the checkers left without a sentence one that says what the
// resource had seen: the idempotency key's first charge, the row a unique key kept, the
// token a fenced row already carried.
void explain_protections(SequenceFigure& figure, const Trace& trace);

// Where the provider first saw a replayed request's key: "the payment provider had seen
// key batch-41 at 1.005s (charge 1, from server-1)". A replay of the same work is a
// protection and one of other work lost it; both say this.
std::string key_seen_before(const Trace& trace, const Vocabulary& words, const TraceEvent& replayed);

}  // namespace locksim
