#pragma once
// Who held the lock at a moment, read from a figure's bars of the lock as the store saw
// it: a holder holds it while a majority of the store's nodes grant it (one node for a
// single Redis, three of Redlock's five). The sentences of violation_story.cpp judge
// each write by its sender's standing when it landed.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "reports/figure/sequence_figure.hpp"

namespace locksim {

// Where one holder stood with the store at one moment, judged by the store's grant bars.
// With several store nodes (Redlock) it holds the lock while it holds a majority of them.
struct LeaseStanding {
    enum class Kind {
        held,        // it held the lock
        lost,        // it had held it, and the store had let it go
        never_held,  // the store had not granted it the lock by then
        own_memory,  // the lock lived in its own memory: nothing shared stood behind it
        no_lock,     // the design has no lock at all
    };
    Kind kind = Kind::never_held;
    Instant since;                          // held: when it got what it holds; lost: when it lost it
    std::vector<const FigureSpan*> grants;  // held: the grants it holds; lost: those that ended at `since`
    std::size_t nodes_held = 0;             // store nodes it held then (lost: just after `since`)
    std::size_t store_nodes = 1;            // store nodes that hold the lock at once (Redlock: 5)
};

// Who held the lock when, in one figure: how many store nodes hold it at once is counted
// once, then any holder's standing at any moment can be asked.
class LockHistory {
public:
    explicit LockHistory(const SequenceFigure& figure);
    LeaseStanding standing(std::size_t holder, Instant at) const;

private:
    const SequenceFigure& figure_;
    bool any_grant_ = false;
    std::size_t store_nodes_ = 1;
};

// A grant on a store's lane, not a lock in the holder's own memory.
bool shared_grant(const FigureSpan& span);

// The store lanes whose grant to `holder` is in force at `at`, in lane order.
std::vector<std::size_t> nodes_granting(const SequenceFigure& figure, std::size_t holder, Instant at);

// Whether `holder` holds a majority of `store_nodes` at `at`.
bool holds_majority(const SequenceFigure& figure, std::size_t holder, Instant at, std::size_t store_nodes);

// "server-1", "server-1 and server-2", "server-1, server-2 and server-3".
std::string joined_names(const std::vector<std::string>& names);

// The lane of the node called `name`, if the figure has one.
std::optional<std::size_t> lane_named(const SequenceFigure& figure, const std::string& name);

}  // namespace locksim
