#pragma once
// The checkers, each reading a run's events one at a time in the order they were
// recorded: as the run records them (a sweep keeps no trace, so its memory does not grow
// with the run's length) or replayed from a kept trace, with the same result. `see` reads
// one event, `finish` adds what is left once the run has ended at `run_end`. The trace
// passed along gives node names and the run's words, never other events.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "checks/fault_strikes.hpp"
#include "checks/metrics.hpp"
#include "sim/trace.hpp"

namespace locksim {

// "One charge per customer and period", at the payment provider.
class ChargeCounter {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace& trace, Instant run_end, RunMetrics& metrics);

private:
    // Per (customer, period, step of the effect): how many times it was done.
    std::map<std::tuple<std::int64_t, std::string, std::int64_t>, std::int64_t> charges_;
    std::vector<std::string> step_names_;  // the effect's steps, when it has several
};

// "Every due charge is made": a due charge that the provider answered with another
// customer's or period's charge, for a key that did not tell them apart.
class SuppressedEffectFinder {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace&, Instant, RunMetrics&) {}

private:
    using Effect = std::pair<std::int64_t, std::string>;  // (customer, period)
    std::set<Effect> done_;                               // charged: money moved for it
    std::set<Effect> suppressed_;                         // answered with another's charge while due
};

// "Never two holders in true time".
class OverlapFinder {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace& trace, Instant run_end, RunMetrics& metrics);

    struct Belief {
        std::string key;
        NodeId holder;
        Instant from;
        Instant to;
    };

private:
    std::vector<Belief> closed_;
    std::map<std::pair<std::uint32_t, std::string>, Belief> open_;
};

// "Tokens accepted by a resource only increase".
class FenceChecker {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace&, Instant, RunMetrics&) {}

private:
    using Highest = std::optional<std::int64_t>;  // the highest token that has written, if any
    std::map<std::pair<std::int64_t, std::string>, Highest> rows_;
    // Per row, the write that gave it its token, said only when a claim is refused ("written
    // by server-1 at 8.017s"): most runs refuse none. A sweep keeps no events to look back at.
    struct RowWrite {
        std::optional<NodeId> client;
        Instant at;
    };
    std::map<std::pair<std::int64_t, std::string>, RowWrite> written_by_;
    Highest provider_;
};

// Releases of somebody else's lock, and grants whose token did not rise.
class ReleaseChecker {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace&, Instant, RunMetrics&) {}

private:
    std::optional<std::int64_t> highest_token_;
};

// The herd effect: how many waiters one deletion woke.
class WakeupCounter {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace& trace, Instant run_end, RunMetrics& metrics);

private:
    std::map<std::string, std::int64_t> woken_by_deletion_;
};

// When the last job ended.
class FinishFinder {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace&, Instant, RunMetrics&) {}
};

// Waiters retrying in step.
class RetryStormFinder {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace&, Instant, RunMetrics&) {}

private:
    std::map<std::int64_t, std::int64_t> retries_per_ms_;
    std::set<std::uint32_t> refused_before_;
};

// "One renewal row per customer and period", at the database.
class DoubleApplyCounter {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace&, Instant, RunMetrics&) {}

private:
    std::map<std::pair<std::int64_t, std::string>, std::set<std::uint32_t>> writers_;
};

// An efficiency lock's cost: index builds beyond the first.
class DuplicateWorkMeter {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace& trace, Instant run_end, RunMetrics& metrics);

private:
    std::set<std::string> built_;
};

// Liveness: stalls after a holder's crash, waits for the lock, refusals, job runs.
class WaitMeter {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace& trace, Instant run_end, RunMetrics& metrics);

private:
    std::set<std::uint32_t> believing_;
    std::map<std::uint32_t, Instant> waiting_since_;  // job started, lock not yet held
    std::optional<Instant> stalled_since_;            // a holder crashed, nobody has been granted since
};

// "Every item the job was meant to do is done": at least once, beside ChargeCounter's at
// most once. What was meant is what the world declared due (job.due); what is done is what
// the provider charged, or the period's index built.
class ItemLedger {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace& trace, Instant run_end, RunMetrics& metrics);

private:
    struct DueRun {
        std::uint64_t sequence = 0;
        std::string period;
        std::optional<std::string> items;     // the customers as ranges; none for an index build
        std::vector<std::string> step_names;  // of each item's effect when several, every one to be done
    };
    std::vector<DueRun> due_;
    std::set<std::tuple<std::int64_t, std::string, std::int64_t>> charged_;  // (customer, period, step)
    std::set<std::string> built_;                                            // periods whose index was built
};

// "No lock is left behind": a lock the store still holds at the end, that no lease will
// free, for a holder that no longer believes it holds it.
class LockLeakFinder {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace& trace, Instant run_end, RunMetrics& metrics);

private:
    struct Grant {
        NodeId holder;
        NodeId store;  // the node that granted it: the holder itself for a lock in its own memory
        std::uint64_t sequence = 0;
        Instant at;
        bool leased = false;  // a lease (ttl) that runs out by itself
    };
    std::map<std::string, Grant> held_;  // by key, the store's current holder
    std::set<std::uint32_t> believing_;
    std::set<std::uint32_t> crashed_;
};

// Work begun and not finished: job runs that started and had not ended, charge requests
// that timed out and had not reached the provider.
class PendingWorkFinder {
public:
    void see(const Trace& trace, const TraceEvent& event, RunMetrics& metrics);
    void finish(const Trace& trace, Instant run_end, RunMetrics& metrics);

private:
    // A charge request's attempts, of one server for one customer and period: how many the
    // trace shows were sent, how many the provider saw, and when the first timed out.
    struct Attempts {
        std::int64_t sent = 0;
        std::int64_t arrived = 0;
        std::optional<Instant> first_timed_out;
        std::uint64_t first_timed_out_sequence = 0;
    };
    void settle(std::uint32_t server);

    struct Started {
        Instant at;
        std::uint64_t sequence = 0;
    };
    std::map<std::uint32_t, Started> running_;  // server → its open job run's job.started
    std::map<std::uint32_t, Instant> frozen_;   // server → when its pause began
    std::map<std::tuple<std::uint32_t, std::int64_t, std::string>, Attempts> charges_;
};

// The kinds of event the checkers of violations read (the checkers above whose metric has a
// violation bit): what a violation can depend on is these events, in the order the run
// recorded them, and nothing else. Explore's search of ends relies on it
// (runners/run_branches.hpp), and a test holds the checkers to it.
bool read_for_violations(EventKind kind);

// Every checker at once, as a reader of the trace while it is recorded: what the
// engine is given to check a run without keeping its events.
class RunChecks : public TraceReader {
public:
    void read(const Trace& trace, const TraceEvent& event) override;
    // The run's metrics, its flagged events in trace order.
    RunMetrics finish(const Trace& trace, Instant run_end);

private:
    // In the order their flags are listed before sorting.
    using Checkers = std::tuple<ChargeCounter, SuppressedEffectFinder, OverlapFinder, FenceChecker, ReleaseChecker,
                                WakeupCounter, FinishFinder, RetryStormFinder, DoubleApplyCounter, DuplicateWorkMeter,
                                WaitMeter, PendingWorkFinder, ItemLedger, LockLeakFinder>;
    Checkers checkers_;
    FaultReach fault_reach_;  // reads messages held back or lost too, which no checker reads
    RunMetrics metrics_;
    std::array<std::vector<FlaggedEvent>, std::tuple_size_v<Checkers>> flags_by_checker_;
    std::map<std::uint64_t, Instant> flagged_at_;  // true time of each flagged event, by sequence
};

}  // namespace locksim
