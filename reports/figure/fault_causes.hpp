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

#include "reports/figure/lease_standing.hpp"
#include "reports/figure/sequence_figure.hpp"
#include "sim/trace.hpp"

namespace locksim {

// The messages a cause's words name ("the messages renewing its lock were lost", "its next
// message … was held in flight"), by the trace events that sent them, so that a report
// draws each one its sentence names.
using CitedMessages = std::vector<std::uint64_t>;

// What the store had done, for "… after <it> (30.001s)": "its lease had ended at the
// store", "the store had lost its lock", "it had lost its majority".
std::string loss_phrase(const Trace& trace, const LeaseStanding& lost);

// Why `holder` lost the lock (`lost.kind == lost`), and, given `sent`, why it still wrote
// then: "a gc pause froze it for 40s from 6.000s, and it could not notice". Empty when the
// trace tells no more than the loss itself. The messages it names are added to `cited`.
std::string loss_cause(const SequenceFigure& figure, const Trace& trace, std::size_t holder, const LeaseStanding& lost,
                       std::optional<Instant> sent, CitedMessages& cited);

// A fault that held back what `sender` sent to `receiver` at `sent`: "a delay spike held
// back its messages to payment-provider by 90s from 4.010s".
std::optional<std::string> delay_cause(const SequenceFigure& figure, const Trace& trace, std::size_t sender,
                                       std::size_t receiver, Instant sent, CitedMessages& cited);

}  // namespace locksim
