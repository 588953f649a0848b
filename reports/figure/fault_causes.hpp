#pragma once
// Why a holder no longer held the lock when its write landed, told from the trace alone:
// the store event that took the lock from it (an expiry, a crash before a failover, a
// restart that loaded nothing, another server's delete), the fault behind that (a pause,
// a partition, a clock that jumped), and why the holder went on anyway. The sentences of
// violation_story.cpp are made of these pieces.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "reports/figure/sequence_figure.hpp"
#include "sim/trace.hpp"

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

LeaseStanding standing_at(const SequenceFigure& figure, std::size_t holder, Instant at);

// What the store had done, for "… after <it> (30.001s)": "its lease had ended at the
// store", "the store had lost its lock", "it had lost its majority".
std::string loss_phrase(const Trace& trace, const LeaseStanding& lost);

// Why `holder` lost the lock (`lost.kind == lost`), and, given `sent`, why it still wrote
// then: "a gc pause froze it for 40s from 6.000s, and it could not notice". Empty when the
// trace tells no more than the loss itself.
std::string loss_cause(const SequenceFigure& figure, const Trace& trace, std::size_t holder, const LeaseStanding& lost,
                       std::optional<Instant> sent);

// A fault that held back what `sender` sent to `receiver` at `sent`: "a delay spike held
// back its messages to payment-provider by 1m30s from 4.010s".
std::optional<std::string> delay_cause(const SequenceFigure& figure, const Trace& trace, std::size_t sender,
                                       std::size_t receiver, Instant sent);

// "server-1", "server-1 and server-2", "server-1, server-2 and server-3".
std::string joined_names(const std::vector<std::string>& names);

// The lane of the node called `name`, if the figure has one.
std::optional<std::size_t> lane_named(const SequenceFigure& figure, const std::string& name);

}  // namespace locksim
