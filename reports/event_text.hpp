#pragma once
// What a person reads for one trace event: "grants lock:renewals to server-1 (token 33)".
// Shared by every text-based report so an event reads the same everywhere.
#include <optional>
#include <string>

#include "checks/metrics.hpp"
#include "sim/trace.hpp"

namespace locksim {

enum class EventTone { normal, fault, violation, protection };

struct EventText {
    std::string text;
    EventTone tone = EventTone::normal;
};

// nullopt for events a timeline leaves out (messages, reads, refusals: see the caller).
std::optional<EventText> describe_event(const TraceEvent& event, const Trace& trace);

// How a report marks an event a checker flagged: a violation; a protection at work (a
// stale write refused); or a fault's mark, for a warning that is neither (a fencing token
// granted again after a failover is no protection).
EventTone tone_of(const FlaggedEvent& flag);

}  // namespace locksim
