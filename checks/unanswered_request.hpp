#pragma once
// The request a job waits on for ever: the last one its server sent that no reply answered,
// as a kept trace shows it. What an unfinished run's line and a lost job's cause name.
#include "sim/node_id.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

// The last request `server` sent since `since` whose reply it never received, as the kept
// trace shows it: what a job hung on a lost reply waits for. Null where the trace kept no
// messages (a sweep's runs) or every request was answered, or failed with its connection
// (connection.refused, connection.reset).
const TraceEvent* unanswered_request(const Trace& trace, NodeId server, Instant since);

}  // namespace locksim
