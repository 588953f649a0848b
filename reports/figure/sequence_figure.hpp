#pragma once
// One design's run as a sequence diagram: a lane per node, numbered steps in time order,
// message arrows from send to delivery, and the bars behind them (each lease as its
// holder believed it and as the store saw it, pauses, downtime). Every picture of a run
// (SVG, Mermaid, Perfetto, the event table) is drawn from this, so an event carries the
// same number everywhere: e17 is the HTML anchor, the Mermaid label and a Perfetto arg.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks/run_outcome.hpp"
#include "reports/event_text.hpp"

namespace locksim {

struct FigureStep {
    int number = 0;              // e<number>
    std::uint64_t sequence = 0;  // the trace event
    Instant at;                  // true time
    std::size_t lane = 0;
    std::string text;  // what happened, in words; for a message, its label
    EventTone tone = EventTone::normal;
    std::string explanation;               // the checker's sentence, if it flagged the event
    std::optional<Metric> flagged_as;      // the metric of the checker's flag, if it flagged the event
    std::vector<std::uint64_t> cites;      // the messages `explanation` names, by the trace events that sent them
    bool related = true;                   // part of a violation's story; the rest fades
    bool milestone = false;                // in the lock's life (grant, expiry, release, belief, failover, …)
    std::optional<std::int64_t> customer;  // the customer (row, user) the event or message is about
    std::optional<Instant> wall;           // the node's clock readings (none for world events)
    std::optional<Instant> monotonic;

    // A message: drawn from (lane, at) to (to_lane, arrives).
    std::optional<std::size_t> to_lane;
    Instant arrives;
    std::optional<std::uint64_t> delivered_as;  // the trace event that delivered it (none: lost or in flight)
    bool lost = false;
    // Its stream could not carry it at first and retransmitted it (message.stalled): it
    // arrived late, or was still held when the run stopped.
    bool stalled = false;
    bool in_flight = false;                // still travelling when the run stopped: drawn as a short stub
    bool reply = false;                    // an answer to an earlier request
    std::optional<std::uint64_t> request;  // a reply: the trace event that sent the request it answers
    bool retry = false;                    // a refused attempt after the first: drawn thin, without a label
    std::string note;                      // on a client's first refusal: how many more followed, until when

    bool is_message() const { return to_lane.has_value(); }
};

struct FigureSpan {
    enum class Kind {
        believed,  // on the holder's lane: from belief.acquired to belief.ended (or its crash)
        granted,   // on the store's lane: from lock.granted to expiry or release, for one holder
        paused,    // node.paused to node.resumed
        down,      // node.crashed to node.restarted
        cut_off,   // on each lane a partition cuts off: network.partitioned to its network.healed
    };
    Kind kind = Kind::believed;
    std::size_t lane = 0;
    Instant from;
    Instant to;
    bool open = false;       // still going when the run stopped
    std::size_t holder = 0;  // granted, believed: the holder's lane (its colour)
    std::string label;       // "believed by server-1 (token 33)"
    // believed: when the holder's own clock said its lease ended, in true time. The bar
    // stops there even if the holder only noticed later (a pause slept through it).
    std::optional<Instant> own_deadline;
    std::uint64_t opened_by = 0;             // the trace event it began at
    std::optional<std::uint64_t> closed_by;  // the trace event it ended at (none: still going)
};

// A fault that lasts: a pause, a crash until the restart, a partition until it heals.
inline bool is_fault_span(const FigureSpan& span) {
    return span.kind == FigureSpan::Kind::paused || span.kind == FigureSpan::Kind::down ||
           span.kind == FigureSpan::Kind::cut_off;
}

struct SequenceFigure {
    std::vector<std::string> lanes;
    std::vector<bool> is_server;    // per lane: a job server (it ran or stood for the job)
    std::vector<FigureStep> steps;  // in trace order
    std::vector<FigureSpan> spans;
    Instant end;               // when the run stopped
    std::size_t messages = 0;  // messages the trace holds (drawn or left out)
    std::size_t left_out = 0;  // steps beyond the cap, not drawn
    bool has_violation = false;
};

// `max_steps` caps very long runs: the figure then ends early and says how much it left out.
SequenceFigure build_sequence_figure(const DesignOutcome& design, std::size_t max_steps = 2500);

}  // namespace locksim
