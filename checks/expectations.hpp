#pragma once
// What a scenario file expects of each design, in the checkers' terms: a metric compared
// with a number, or with who and when, and what the design's lock is for. The loader
// fills these in; the checks judge a run against them. Here, below the loader, so checks
// and reports need nothing of it.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace locksim {

struct Expectation {
    enum class Comparison { equals, at_least, at_most };
    // What of the metric is compared. Only a count can be judged from a sweep's totals;
    // the others need the run itself.
    enum class Subject {
        count,      // the metric's value
        customers,  // MetricDetail::customers: exactly these customers were charged twice
        holders,    // MetricDetail::holders: at least one overlap between these two servers
        time,       // first_violation_at: the true time of the first violation (value in ns)
    };
    std::string metric;
    Comparison comparison = Comparison::equals;
    std::int64_t value = 0;
    // Not written in the file: a correctness lock must never let these happen, or the
    // verdict's rule fails the run (checks/verdict.hpp).
    bool implied = false;
    Subject subject = Subject::count;
    std::vector<std::int64_t> customers;  // Subject::customers, ascending, no repeats
    std::vector<std::string> holders;     // Subject::holders, the two servers' names
    std::string implied_because;          // why, when implied: "a correctness lock"
};

// Whether one of `expected` is of `metric`: the design declares it.
inline bool names_metric(const std::vector<Expectation>& expected, std::string_view metric) {
    for (const auto& e : expected)
        if (e.metric == metric) return true;
    return false;
}

// An expectation judged on a run, or on a sweep's or an exploration's totals.
struct ExpectationResult {
    Expectation expectation;
    std::int64_t actual = 0;  // a count, or (Subject::time) the first violation's true time in ns
    bool held = false;
    // What was found when the expectation names who or when: "[41, 42]", "server-1 and
    // server-3", "1m 2s", "none". Empty for a count.
    std::string found;
};

// A total that a sweep's or an exploration's "expect" may name, with what it counts:
// for `locksim metrics` and the JSON Schema.
struct TotalSpec {
    std::string name;
    std::string meaning;
};

// The totals' names, in order: what the loader lets an "expect" block name.
inline std::vector<std::string> total_names(const std::vector<TotalSpec>& totals) {
    std::vector<std::string> names;
    for (const auto& total : totals) names.push_back(total.name);
    return names;
}

// The one expectation that is not a metric: when the first violation happened.
inline constexpr const char* first_violation_metric = "first_violation_at";

// What a design's lock is for. A correctness lock implies expectations of zero
// double charges and zero stale writes accepted, unless the file states its own; an
// efficiency lock's double runs are a cost to report, not a failure.
enum class LockPurpose { correctness, efficiency };

}  // namespace locksim
