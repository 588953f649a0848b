#pragma once
// Builds one design's world from its spec (nodes, links, stores, servers, faults), runs
// it under a seed, and hands back the trace. Everything after this reads only the trace.
#include <cstdint>
#include <vector>

#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/trace.hpp"

namespace locksim {

struct RunResult {
    Trace trace;
    RunSummary summary;
    std::vector<QueuePlace> queue_places;  // one per trace event, when asked for
};

struct RunOptions {
    bool trace_messages = true;  // sweeps turn this off
    // A run that handles more events than this stops with RunawayRun (a retry loop
    // without a delay, say); the command line's --max-events raises it.
    std::uint64_t event_limit = Engine::default_event_limit;
    // Reads every event as it is recorded (the checkers); must outlive the run.
    TraceReader* reader = nullptr;
    // False: the trace keeps no events, only `reader` sees them (sweeps).
    bool keep_trace = true;
    bool queue_places = false;  // explore's run without faults: which strike points are equivalent
};

RunResult run_world(const WorldSpec& spec, std::uint64_t seed, RunOptions options = {});

}  // namespace locksim
