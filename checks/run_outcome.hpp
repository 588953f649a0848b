#pragma once
// A finished run of a scenario: per design its trace and what the checkers found.
// Every renderer is a function of this and nothing else.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/expectations.hpp"
#include "checks/fault_effects.hpp"
#include "checks/metrics.hpp"
#include "checks/verdict.hpp"
#include "models/vocabulary.hpp"
#include "sim/engine.hpp"
#include "sim/trace.hpp"

namespace locksim {

struct DesignOutcome {
    std::string name;
    LockPurpose purpose = LockPurpose::correctness;
    std::vector<std::string> lanes;  // node names in the order a sequence figure draws them
    Trace trace;
    RunSummary summary;
    RunMetrics metrics;
    // The file's expectations judged, then what the verdict fails (verdict_failures()).
    std::vector<ExpectationResult> expectations;
    // Set when the design has faults and they were judged against runs without them.
    std::optional<FaultJudgement> faults;
    Verdict verdict;

    // The file's contract and the verdict's rule: every expectation held, and the verdict
    // failed nothing (its failures are among the expectations).
    bool held() const;
    // The world's outcome, a different fact: a checker flagged a violation (money moved
    // twice, a stale write let through, somebody else's lock deleted), whatever the file
    // expected. A design written to show a failure holds and is violated.
    bool violated() const;
    // Work it had begun was pending at its end (locksim::unfinished): what it counted is not
    // all it would have done, so a clean count proves nothing.
    bool unfinished() const;
    // Its expectations held, but every fault missed (changed nothing and reached no
    // holder), and they hold without any fault too: the pass says nothing about them.
    bool passes_only_with_inert_faults() const;
    // Its job charges, and it charged no one: it lost nothing because it did nothing, which
    // is no sign of safety (a design that stalls).
    bool did_nothing() const;
};

struct ScenarioOutcome {
    std::string file;
    std::string name;
    std::string description;
    std::string lesson;
    std::uint64_t seed = 0;
    std::vector<DesignOutcome> designs;

    bool held() const;
    std::vector<std::string> violated_designs() const;  // their names, in the file's order
};

// `trace`: the run's, for the names of the servers an expectation may name.
std::vector<ExpectationResult> evaluate(const std::vector<Expectation>& expectations, const RunMetrics& metrics,
                                        const Trace& trace);
// The same for any set of counts, such as a sweep's totals: `value_of` gives a metric's
// value by name. Only Subject::count can be judged so.
std::vector<ExpectationResult> evaluate(const std::vector<Expectation>& expectations,
                                        const std::function<std::int64_t(std::string_view)>& value_of);

const char* to_string(LockPurpose purpose);

// What an efficiency lock's failures cost in this run ("35s of duplicated work"); empty
// if nothing was wasted or the lock is for correctness.
std::string efficiency_cost(const DesignOutcome& design);

// "<metric> expected 0, got 1" / "<metric> expected at least 3, got 2" /
// "<metric> expected customers [42], got [41, 42]"; the metric and the items in the
// scenario's words when it names its own ("double transfers expected 0, got 2").
std::string describe_failure(const ExpectationResult& result, const Vocabulary& words = Vocabulary::defaults());
// The same of a run's own expectation, and for a violation the sentence of its first
// flagged event: "items_not_done expected 0, got 1 (customer 44 never charged for 2026-10)",
// so that a CI log says what the run could not vouch for without a second run.
std::string describe_failure(const ExpectationResult& result, const DesignOutcome& design);

}  // namespace locksim
