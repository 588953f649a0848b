#pragma once
// The one rule of what a violation is and when it fails a run, for every command that
// judges runs: `run`'s exit status and `check` fail on it; a sweep's runs with a violation,
// explore's sets of violations and shrink's target are its violations.
//
//  - A violation is a fact of the run: a checker flagged an event of a metric the table
//    marks as a violation (checks/metric_table.hpp). Sweeps and explore count every one,
//    declared or not: how often a design shows a failure is what they measure, also of a
//    design written to show it.
//  - A violation fails the run unless the design declares it: its "expect" names the
//    metric ("foreign_releases": 1, {"at_least": 1}; an expectation of 0 fails by itself),
//    or it is an efficiency lock's cost (MetricSpec::efficiency_cost) and the design's lock
//    is for efficiency. A correctness lock's implied zeros name their metrics, so a
//    violation of those fails once, as that expectation.
//  - A run that effected nothing fails unless the design's "expect" names `charges`: a
//    design that never charged anyone says nothing about its lock. Where the run without
//    faults charged, the faults stopped all work; where it did not either, the design's
//    settings leave none possible. Settings that certainly do are refused at load instead
//    (scenarios/schema). A job that charges nothing by its nature (an index build) is exempt.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "checks/expectations.hpp"
#include "checks/metrics.hpp"
#include "models/vocabulary.hpp"

namespace locksim {

// What of the design, beyond its expectations, the verdict needs.
struct VerdictContext {
    LockPurpose purpose = LockPurpose::correctness;
    bool job_charges = true;  // its job charges (renewals, a leader loop); an index build never does
    // What the same design charged in its run without any fault, when it has faults and
    // that run was made.
    std::optional<std::int64_t> charged_without_faults;
};

struct Verdict {
    std::uint32_t violations = 0;  // every violation a checker flagged, a bit each (violation_flag())
    std::uint32_t undeclared = 0;  // those of them the design does not declare: each fails the run
    // The run charged nothing, and the design does not declare it.
    bool no_effects = false;
    std::optional<std::int64_t> charged_without_faults;  // with no_effects: as in VerdictContext
    bool job_charges = true;                             // as in VerdictContext

    bool fails() const { return undeclared != 0 || no_effects; }
};

Verdict judge_run(const RunMetrics& metrics, const std::vector<Expectation>& expectations,
                  const VerdictContext& context);

// What the verdict fails, as failed implied expectations to list after the file's own, so
// that every output shows them as it shows any failed expectation: each undeclared
// violation expected 0, and a run without effects expected to charge at least once.
std::vector<ExpectationResult> verdict_failures(const Verdict& verdict, const RunMetrics& metrics,
                                                const Vocabulary& words);

// The metrics of a set of violations, in the table's order, and their names.
std::vector<Metric> violated_metrics(std::uint32_t violations);
std::vector<std::string> violation_names(std::uint32_t violations);

}  // namespace locksim
