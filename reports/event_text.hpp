#pragma once
// What a person reads for one trace event: "grants lock:renewals to server-1 (token 33)".
// Shared by every text-based report so an event reads the same everywhere.
#include <optional>
#include <string>

#include "sim/trace.hpp"

namespace locksim {

enum class EventTone { normal, fault, violation, protection };

struct EventText {
    std::string text;
    EventTone tone = EventTone::normal;
};

// nullopt for events a timeline leaves out (messages, reads, refusals: see the caller).
std::optional<EventText> describe_event(const TraceEvent& event, const Trace& trace);

}  // namespace locksim
