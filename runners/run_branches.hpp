#pragma once
// Which branches a run took, as far as its trace shows them, and where the run of a later
// end of a fault may take others: what explore's search of ends compares and predicts
// (runners/fault_regions.cpp; the argument is docs/explore.md's "What it assumes").
//
// Along one set of branches every instant of a run is either fixed (it does not follow
// from the fault's end) or the end plus a constant (it does). So two runs that show the
// same branches at two ends show them at every end between, and the nearest end at which
// the branches can change is where an event that follows the end would meet one that does
// not: the search tries that end first, and bisects only where a change comes earlier.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

// What a run's trace says about its branches. Nodes share nothing but messages, so what
// one node does depends on the order of its own events only, not on how they interleave
// with another node's: each node's events in order, with their node, kind and fields but
// those that are times or lengths (they move with the end) and with a message named by
// its sender and its place among that sender's messages (a run-wide number changes when two
// nodes' sends swap). The checkers of violations compare events of different nodes, of a
// few kinds (read_for_violations): those are in the order of the run too. And apart from
// all that, each event's true instant.
struct RunShape {
    std::vector<std::uint64_t> events;   // hashed, node by node, each node's in order
    std::vector<Instant> times;          // of `events`
    std::vector<std::uint32_t> nodes;    // of `events`
    std::vector<std::uint32_t> checked;  // the places in `events` of those the checkers read, in the run's order
};

RunShape shape_of(const Trace& trace);

// The runs of ends `a` and `b` took the same branches: the same shape (but for times), each
// event at the same instant in both or moved by exactly the difference of the ends.
bool same_branches(const RunShape& a, Instant end_a, const RunShape& b, Instant end_b);

// The runs took the same branches, wherever each event's instant is: for a fault's size
// (a clock step's), along one set of branches every instant is an affine function of the
// size, with a slope of its own.
bool same_order(const RunShape& a, const RunShape& b);

// How each event of a run follows from the fault's end.
enum class Follows : std::uint8_t { not_at_all, the_end, unknown };

// Each event of `run` (of end `end`) against `other` (of end `other_end`), which may have
// taken other branches: an event the other run shows too (the same content, as often before
// it) at the same instant does not follow from the end; one moved by the ends' difference
// does; any other is unknown.
std::vector<Follows> how_events_follow(const RunShape& run, Instant end, const RunShape& other, Instant other_end);

// The nearest end after `after` (the run of `end`'s branches reach at least that far) at
// which an event that follows the end would meet or pass one that does not on its node, or
// among the events the checkers read; an event of unknown kind counted as both; none when
// no two can meet.
std::optional<Instant> next_meeting(const RunShape& run, Instant end, const std::vector<Follows>& follows,
                                    Instant after);

}  // namespace locksim
