#pragma once
// A run as Chrome trace event JSON, which ui.perfetto.dev and chrome://tracing open: a
// process per node with one track each for its steps, its lease as it believed it, the
// locks it granted as a store (a track per holder), its pauses and downtime, and its
// messages, sent and received slices joined by flow arrows. Long runs zoom there.
#include <string>

#include "checks/run_outcome.hpp"

namespace locksim {

// Every design of the outcome in one trace, a design's nodes grouped under its name.
std::string render_perfetto(const ScenarioOutcome& outcome);

}  // namespace locksim
