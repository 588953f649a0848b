#pragma once
// What went wrong in one run, recomputed from the trace alone: a model
// that forgets to count something cannot hide it from these checkers.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/metric_table.hpp"
#include "sim/node_id.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

struct RunSummary;  // sim/engine.hpp

struct DoubleCharge {
    std::int64_t customer = 0;
    std::string period;
    std::int64_t charges = 0;  // 2 or more
};

struct HolderOverlap {
    std::string key;
    NodeId first;  // believed first
    NodeId second;
    Instant from;  // true time both believed
    Instant to;
};

// Work a run had begun and not finished when it ended (checks/progress.cpp says what
// counts). A run that its horizon cut with any of it is no safe run: carried on, that work
// could still have broken the lock's promise.
struct PendingWork {
    NodeId server;
    std::uint64_t sequence = 0;            // its job.started, or the charge request's first time-out
    Instant since;                         // its job run's start, or the charge request's first time-out
    std::optional<std::int64_t> customer;  // set for a charge request that may still reach the provider
    std::string period;                    // the charge request's period
    std::optional<Instant> frozen_since;   // the server was paused when the run ended
};

// An event a report should point at, with a sentence saying why.
struct FlaggedEvent {
    std::uint64_t sequence = 0;  // TraceEvent::sequence
    Metric metric{};             // the metric it counts towards, which says whether it is a violation
    std::string explanation;

    // Else a protection that worked (a refused stale write) or a warning (a reused token).
    bool violation() const { return metric_spec(metric).violation(); }
};

// What the checkers found: each metric's value, and the facts reports and expectations of
// who and when need beyond the counts.
struct RunMetrics {
    std::vector<DoubleCharge> double_charged;  // (customer, period) charged more than once
    std::vector<HolderOverlap> overlaps;       // pairs of holders that believed at the same time
    Duration overlap_time{};                   // true time during which two or more believed
    Duration duplicate_work{};                 // processor time spent on index builds beyond the first per period
    Duration longest_stall{};                  // longest time from a holder's crash to the next grant
    Duration longest_wait{};                   // longest time a job waited for the lock
    std::vector<FlaggedEvent> flagged;         // by trace sequence
    std::vector<PendingWork> pending;          // work begun and not finished at the run's end, by server
    std::optional<Instant> first_violation;    // true time of the first flagged violation
    // Some fault, the scenario's own or a drawn one, reached the lock (checks/fault_effects.hpp):
    // struck its holder, the store while it held one, or a message of theirs. A sweep counts
    // the runs it did in: a rate over runs no fault reached says nothing about the faults.
    bool fault_reached_the_lock = false;

    const FlaggedEvent* flag_for(std::uint64_t sequence) const;

    std::int64_t value(Metric metric) const { return values_[static_cast<std::size_t>(metric)]; }
    // By the name scenario files use in "expect": the loader lets only the table's names
    // through, so another is a bug.
    std::int64_t value(std::string_view name) const;

    // What the checkers write.
    void add(Metric metric, std::int64_t count = 1) { values_[static_cast<std::size_t>(metric)] += count; }
    void raise_to(Metric metric, std::int64_t value);  // a metric that is the largest of something
    void set_ms(Metric metric, Duration duration);     // a metric in whole milliseconds

private:
    std::array<std::int64_t, metric_count> values_{};
};

// `run_end`: true time the run stopped; a belief still held then counts until it.
RunMetrics check_trace(const Trace& trace, Instant run_end);

// The one definition of an unfinished run: work it had begun was pending when it ended,
// whether its horizon cut it or it ran out of events with a job still waiting (a reply
// that never comes). A run whose horizon left only what begins no work (a recurring job's
// next tick, a store's heartbeat, a leader's renewals) is finished.
bool unfinished(const RunMetrics& metrics);
// "server-1's job run (started at 0.000s; frozen since 6.000s)", "server-2's charge
// request for customer 42 (2026-10), timed out at 12.000s and not yet at the payment
// provider": in the run's own words.
std::string describe_pending(const PendingWork& work, const Trace& trace);
// The same, and what the server was waiting for when the run ended, where the kept trace
// shows it ("; waiting since 7201.289s for postgres's reply to UPDATE payouts …").
std::string describe_pending_wait(const PendingWork& work, const Trace& trace);

// The individual checkers.
void count_charges(const Trace& trace, RunMetrics& metrics);
void find_suppressed_effects(const Trace& trace, RunMetrics& metrics);
void find_holder_overlaps(const Trace& trace, Instant run_end, RunMetrics& metrics);
void check_fencing(const Trace& trace, RunMetrics& metrics);
void count_foreign_releases(const Trace& trace, RunMetrics& metrics);
void count_wakeups(const Trace& trace, RunMetrics& metrics);
void find_finish(const Trace& trace, RunMetrics& metrics);
void find_retry_storms(const Trace& trace, RunMetrics& metrics);
void count_double_applies(const Trace& trace, RunMetrics& metrics);
void measure_duplicate_work(const Trace& trace, RunMetrics& metrics);
void measure_waits(const Trace& trace, Instant run_end, RunMetrics& metrics);
void find_pending_work(const Trace& trace, RunMetrics& metrics);
void find_items_not_done(const Trace& trace, Instant run_end, RunMetrics& metrics);
void find_leaked_locks(const Trace& trace, Instant run_end, RunMetrics& metrics);

}  // namespace locksim
