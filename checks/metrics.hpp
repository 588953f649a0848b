#pragma once
// What went wrong in one run, recomputed from the trace alone (STYLE.md #10): a model
// that forgets to count something cannot hide it from these checkers.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/node_id.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

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

// An event a report should point at, with a sentence saying why.
struct FlaggedEvent {
    std::uint64_t sequence = 0;  // TraceEvent::sequence
    bool violation = false;      // false: a protection that worked (a refused stale write)
    std::string explanation;
    std::string_view metric;  // the metric it counts towards: "double_charges", "stale_writes_refused", …
};

struct RunMetrics {
    std::int64_t charges = 0;                  // money moved at the provider
    std::vector<DoubleCharge> double_charged;  // (customer, period) charged more than once
    std::vector<HolderOverlap> overlaps;       // pairs of holders that believed at the same time
    Duration overlap_time{};                   // true time during which two or more believed
    std::int64_t stale_writes_rejected = 0;    // fenced writes refused because a newer token had written
    std::int64_t stale_writes_accepted = 0;    // fenced writes let through although a newer token had written
    std::int64_t foreign_releases = 0;         // a lock deleted by a node that did not hold it
    std::int64_t token_grants = 0;             // grants that carried a fencing token
    std::int64_t tokens_reused = 0;            // grants whose token was not above every earlier grant's
    std::int64_t peak_retries_per_ms = 0;      // most refused retries (not first attempts) within one millisecond
    std::int64_t max_wakeups_per_release = 0;  // most waiters one deletion woke (the herd effect)
    std::int64_t finished_ms = 0;              // true time, in ms, at which the last job ended (0: none did)
    std::int64_t double_applies = 0;           // renewal rows set to charged by a second server
    Duration duplicate_work{};                 // processor time spent on index builds beyond the first per period
    Duration longest_stall{};                  // longest time from a holder's crash to the next grant
    Duration longest_wait{};                   // longest time a job waited for the lock
    std::int64_t lock_refusals = 0;            // acquire attempts the store refused
    std::int64_t job_runs = 0;                 // jobs that started (a leader's scheduler runs one)
    std::vector<FlaggedEvent> flagged;         // by trace sequence
    std::optional<Instant> first_violation;    // true time of the first flagged violation

    const FlaggedEvent* flag_for(std::uint64_t sequence) const;

    std::int64_t double_charges() const;  // charges beyond the first, summed
    // The value of a metric by the name scenario files use in "expect".
    std::int64_t value(std::string_view metric) const;
};

// The names expectations may use, in the order the JSON output lists them.
const std::vector<std::string>& metric_names();

// One sentence on what a metric counts, for --help, the schema and reports.
std::string_view metric_meaning(std::string_view metric);

// `run_end`: true time the run stopped; a belief still held then counts until it.
RunMetrics check_trace(const Trace& trace, Instant run_end);

// The individual checkers.
void count_charges(const Trace& trace, RunMetrics& metrics);
void find_overlapping_holders(const Trace& trace, Instant run_end, RunMetrics& metrics);
void check_fencing(const Trace& trace, RunMetrics& metrics);
void count_foreign_releases(const Trace& trace, RunMetrics& metrics);
void count_wakeups(const Trace& trace, RunMetrics& metrics);
void find_finish(const Trace& trace, RunMetrics& metrics);
void find_retry_storms(const Trace& trace, RunMetrics& metrics);
void count_double_applies(const Trace& trace, RunMetrics& metrics);
void measure_duplicate_work(const Trace& trace, RunMetrics& metrics);
void measure_waits(const Trace& trace, Instant run_end, RunMetrics& metrics);

}  // namespace locksim
