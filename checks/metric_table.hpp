#pragma once
// Every metric the checkers compute, in one table: its name as scenario files, JSON and
// sweep summaries write it, what it counts, its unit, what it says about the lock, and
// its words for a person. Everything else that lists metrics iterates this table, and
// code that singles one out names it by its typed `Metric`, never by its text.
// `locksim metrics` prints the table; the JSON Schema's lists of metrics are generated
// from it (scripts/update-schema-metrics.py, which a test runs with --check).
//
// Order: the table's order is the order outputs list metrics in (a run's JSON "metrics",
// a summary table's extra columns, a sweep's totals, explore's columns of violations) —
// that, and nothing else. Explore's sets of violations use each violation's own bit, and
// `Metric` indexes the table only because the static_asserts below check that it may.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

// One per entry of metric_table, in the table's order (a static_assert checks).
enum class Metric : std::uint8_t {
    double_charges,
    suppressed_effects,
    charges,
    double_applies,
    overlapping_holders,
    stale_writes_rejected,
    equal_tokens_refused,
    claims_refused_once,
    conditional_writes_refused,
    stale_writes_accepted,
    foreign_releases,
    items_not_done,
    unfinished_work,
    locks_leaked,
    max_wakeups_per_release,
    finished_ms,
    token_grants,
    tokens_reused,
    peak_retries_per_ms,
    duplicate_work_ms,
    stall_ms,
    longest_wait_ms,
    lock_refusals,
    job_runs,
};

enum class MetricUnit : std::uint8_t { count, milliseconds };

// What a run's expectation of the metric may pin beyond a count.
enum class MetricDetail : std::uint8_t {
    none,
    customers,  // "customers": exactly these customers were charged twice
    holders,    // "between": at least one overlap between these two servers
};

// The metric's flagged events are not violations.
inline constexpr int no_violation_bit = -1;

struct MetricSpec {
    Metric metric;
    std::string_view name;     // as files, JSON and sweep summaries write it: a contract, never reworded
    std::string_view meaning;  // what it counts: `locksim metrics` and the JSON Schema's description
    MetricUnit unit = MetricUnit::count;
    // A person's words for it, for one and for many (a column's heading adds the unit):
    // "{effect}" and "{effects}" stand for the scenario's word for its side effect.
    std::string_view one;
    std::string_view many;
    // Set: its flagged events break what the lock is for, and this is its bit in explore's
    // sets of violations (each its own, so that no list's order decides it).
    int violation_bit = no_violation_bit;
    bool protection = false;  // its flagged events are a protection at work
    bool swept = false;       // sweeps total it over their runs, and their "expect" may name it
    bool safety = false;      // a fault that moves it mattered, even if it missed the lock
    // A correctness lock's table lists an implied expectation of 0 unless the design states
    // its own (any violation fails unless declared: checks/verdict.hpp; these are the ones
    // every correctness lock is judged on by name).
    bool zero_for_correctness = false;
    // An efficiency lock's double runs cost this: the lock's purpose declares it, a cost to
    // report and not a failure.
    bool efficiency_cost = false;
    MetricDetail detail = MetricDetail::none;

    constexpr bool violation() const { return violation_bit != no_violation_bit; }
};

inline constexpr MetricSpec metric_table[] = {
    {.metric = Metric::double_charges,
     .name = "double_charges",
     .meaning = "Charges beyond the first per (customer, period), summed: the money charged twice.",
     .one = "double {effect}",
     .many = "double {effects}",
     .violation_bit = 0,
     .swept = true,
     .safety = true,
     .zero_for_correctness = true,
     .detail = MetricDetail::customers},
    {.metric = Metric::suppressed_effects,
     .name = "suppressed_effects",
     .meaning = "(customer, period) pairs whose charge was due (not yet made) and that the payment provider answered "
                "with the charge of another customer or period, replayed for an idempotency key that did not tell "
                "them apart: work the job believes done and that was never done. Each pair once.",
     .one = "suppressed {effect}",
     .many = "suppressed {effects}",
     .violation_bit = 4,
     .swept = true,
     .safety = true,
     .zero_for_correctness = true},
    {.metric = Metric::charges,
     .name = "charges",
     .meaning = "Charges the payment provider made (money moved).",
     .one = "{effect}",
     .many = "{effects}",
     .safety = true},
    {.metric = Metric::double_applies,
     .name = "double_applies",
     .meaning = "Renewal rows set to charged (a write that changed the row) by a second, different server: the "
                "renewal applied twice at the database, whatever the provider did with the money.",
     .one = "double apply",
     .many = "double applies",
     .safety = true},
    {.metric = Metric::overlapping_holders,
     .name = "overlapping_holders",
     .meaning = "Pairs of belief intervals of two different servers (from belief.acquired to belief.ended or the "
                "holder's crash, in true time) that intersect.",
     .one = "overlap",
     .many = "overlaps",
     .swept = true,
     .safety = true,
     .detail = MetricDetail::holders},
    {.metric = Metric::stale_writes_rejected,
     .name = "stale_writes_rejected",
     .meaning = "Fenced writes with a token lower than one that had already changed the row, refused (0 rows), and "
                "charges the provider refused for a token below the highest it had seen: fencing at work.",
     .one = "stale write rejected",
     .many = "stale writes rejected",
     .protection = true,
     .safety = true},
    {.metric = Metric::equal_tokens_refused,
     .name = "equal_tokens_refused",
     .meaning = "Claims of a renewal row refused (0 rows) because the row already carried the same token: a claim "
                "needs a token above the row's, and a token issued again (a counter that lost increments, a "
                "failover) is not. Not counted in stale_writes_rejected, whose tokens are lower.",
     .one = "claim refused for an equal token",
     .many = "claims refused for an equal token",
     .protection = true,
     .safety = true},
    {.metric = Metric::claims_refused_once,
     .name = "claims_refused_once",
     .meaning = "Claims of a renewal row refused (0 rows) under claim-once although their token was above the "
                "row's: the row was already claimed or charged, and is claimed once.",
     .one = "claim refused: claimed once",
     .many = "claims refused: claimed once",
     .protection = true,
     .safety = true},
    {.metric = Metric::conditional_writes_refused,
     .name = "conditional_writes_refused",
     .meaning = "Conditional charges the provider refused (412 Precondition Failed, 0 rows) because the item's "
                "object had changed since their writer read it: the store's own compare-and-set at work.",
     .one = "conditional write refused",
     .many = "conditional writes refused",
     .protection = true,
     .safety = true},
    {.metric = Metric::stale_writes_accepted,
     .name = "stale_writes_accepted",
     .meaning = "Fenced writes with a token lower than one that had already changed the row, or charges with a "
                "token below the highest the provider had seen, let through: a broken fence.",
     .one = "stale write accepted",
     .many = "stale writes accepted",
     .violation_bit = 1,
     .swept = true,
     .safety = true,
     .zero_for_correctness = true},
    {.metric = Metric::foreign_releases,
     .name = "foreign_releases",
     .meaning = "Releases that deleted a lock held by another node.",
     .one = "foreign release",
     .many = "foreign releases",
     .violation_bit = 2,
     .swept = true,
     .safety = true},
    {.metric = Metric::items_not_done,
     .name = "items_not_done",
     .meaning = "Items the job was meant to do and that were never done by the run's end: for each run of the job "
                "scheduled to start before the horizon (job.due), each of its customers the payment provider never "
                "charged for the run's period, or its period's index never built. Exactly once is at most once "
                "(double_charges) and at least once (this).",
     .one = "{item} never {effected}",
     .many = "{items} never {effected}",
     .violation_bit = 5,
     .swept = true,
     .safety = true,
     .zero_for_correctness = true},
    {.metric = Metric::unfinished_work,
     .name = "unfinished_work",
     .meaning = "Work begun and not finished when the run ended, whether its horizon cut it or it ran out of events "
                "with a process still waiting: job runs that started and never ended (waiting for the lock or a "
                "reply, or frozen), and charge requests that may still reach the provider. What such a run counted "
                "is not all it would have done, so it vouches for nothing.",
     .one = "unfinished work",
     .many = "unfinished work",
     .violation_bit = 6,
     .swept = true,
     .safety = true,
     .zero_for_correctness = true},
    {.metric = Metric::locks_leaked,
     .name = "locks_leaked",
     .meaning = "Locks the store still held at the run's end, without a lease that would run out, for a holder that "
                "no longer believed it held them: its job released them on another session, ended without "
                "releasing, or crashed. Nobody can take such a lock until an operator or the session's end frees it.",
     .one = "lock leaked",
     .many = "locks leaked",
     .violation_bit = 7,
     .swept = true,
     .safety = true,
     .zero_for_correctness = true},
    {.metric = Metric::max_wakeups_per_release,
     .name = "max_wakeups_per_release",
     .meaning = "The most waiters one deletion woke (watch.fired per deleted key): the herd effect.",
     .one = "max wakeups per release",
     .many = "max wakeups per release"},
    {.metric = Metric::finished_ms,
     .name = "finished_ms",
     .meaning = "True time in milliseconds at which the last job ended (0: none did); a stall after a holder's "
                "crash shows here.",
     .unit = MetricUnit::milliseconds,
     .one = "finished",
     .many = "finished"},
    {.metric = Metric::token_grants,
     .name = "token_grants",
     .meaning = "Lock grants that carried a fencing token.",
     .one = "token grant",
     .many = "token grants"},
    {.metric = Metric::tokens_reused,
     .name = "tokens_reused",
     .meaning = "Lock grants whose token was not above every token granted before (a counter that lost "
                "increments).",
     .one = "token reused",
     .many = "tokens reused"},
    {.metric = Metric::peak_retries_per_ms,
     .name = "peak_retries_per_ms",
     .meaning = "The most refused retries (a client's first refused attempt is no retry) within one millisecond "
                "of true time: waiting servers retrying in step.",
     .one = "peak retries per ms",
     .many = "peak retries per ms"},
    {.metric = Metric::duplicate_work_ms,
     .name = "duplicate_work_ms",
     .meaning = "Processor time in milliseconds of every index build of a period after the first: an efficiency "
                "lock's cost.",
     .unit = MetricUnit::milliseconds,
     .one = "duplicate work",
     .many = "duplicate work",
     .violation_bit = 3,
     .safety = true,
     .efficiency_cost = true},
    {.metric = Metric::stall_ms,
     .name = "stall_ms",
     .meaning = "The longest true time in milliseconds from the crash of a server that believed it held the lock "
                "to the next belief.acquired anywhere (to the run's end if none came): the stall time a TTL "
                "trades against renewal traffic.",
     .unit = MetricUnit::milliseconds,
     .one = "stall",
     .many = "stall"},
    {.metric = Metric::longest_wait_ms,
     .name = "longest_wait_ms",
     .meaning = "The longest true time in milliseconds from a job's start to its server holding the lock (to the "
                "run's end if it never did).",
     .unit = MetricUnit::milliseconds,
     .one = "longest wait",
     .many = "longest wait"},
    {.metric = Metric::lock_refusals,
     .name = "lock_refusals",
     .meaning = "Acquire attempts the lock store refused (lock.refused).",
     .one = "lock refusal",
     .many = "lock refusals"},
    {.metric = Metric::job_runs,
     .name = "job_runs",
     .meaning = "Jobs that started (job.started): with a leader elected once, only the leader's scheduler runs the "
                "job.",
     .one = "job run",
     .many = "job runs"},
};

inline constexpr std::size_t metric_count = std::size(metric_table);

// The bits of explore's sets of violations: a std::uint32_t.
inline constexpr int violation_bits = 32;

namespace metric_table_rules {

constexpr bool in_enum_order() {
    for (std::size_t i = 0; i < metric_count; ++i)
        if (static_cast<std::size_t>(metric_table[i].metric) != i) return false;
    return true;
}

constexpr bool names_unique() {
    for (std::size_t i = 0; i < metric_count; ++i)
        for (std::size_t j = i + 1; j < metric_count; ++j)
            if (metric_table[i].name == metric_table[j].name) return false;
    return true;
}

constexpr bool violation_bits_unique() {
    std::uint64_t seen = 0;
    for (const auto& spec : metric_table) {
        if (!spec.violation()) continue;
        if (spec.violation_bit < 0 || spec.violation_bit >= violation_bits) return false;
        const std::uint64_t bit = std::uint64_t{1} << spec.violation_bit;
        if ((seen & bit) != 0) return false;
        seen |= bit;
    }
    return true;
}

// A flagged event is a violation, a protection, or neither; a correctness lock's implied
// zero and an efficiency lock's cost are of a violation, never the same one; every metric
// has words and a meaning.
constexpr bool roles_consistent() {
    for (const auto& spec : metric_table) {
        if (spec.violation() && spec.protection) return false;
        if (spec.zero_for_correctness && !spec.violation()) return false;
        if (spec.efficiency_cost && (!spec.violation() || spec.zero_for_correctness)) return false;
        if (spec.name.empty() || spec.meaning.empty() || spec.one.empty() || spec.many.empty()) return false;
    }
    return true;
}

}  // namespace metric_table_rules

static_assert(metric_table_rules::in_enum_order(), "metric_table lists each Metric once, in the enum's order");
static_assert(metric_table_rules::names_unique(), "two metrics share a name");
static_assert(metric_table_rules::violation_bits_unique(), "two violations share a bit, or a bit is out of range");
static_assert(metric_table_rules::roles_consistent(), "a metric's flags contradict each other, or it lacks words");

constexpr const MetricSpec& metric_spec(Metric metric) {
    // An enumerator added after the last entry without an entry of its own stops here.
    assert(static_cast<std::size_t>(metric) < metric_count);
    return metric_table[static_cast<std::size_t>(metric)];
}

constexpr std::string_view metric_name(Metric metric) {
    return metric_spec(metric).name;
}

// The metric's bit in explore's sets of violations; only for a violation.
constexpr std::uint32_t violation_flag(Metric metric) {
    assert(metric_spec(metric).violation());
    return std::uint32_t{1} << metric_spec(metric).violation_bit;
}

// The entry of that name, or nullptr: a name read from a file is checked against these.
const MetricSpec* find_metric(std::string_view name);

// Every metric's name, in the table's order: what a run's "expect" may name.
const std::vector<std::string>& metric_names();

// The metrics whose flagged events are violations, in the table's order.
const std::vector<Metric>& violation_metrics();

}  // namespace locksim
