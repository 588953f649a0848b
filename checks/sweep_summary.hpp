#pragma once
// What a sweep over many seeds found, per design: how many runs broke a safety property,
// with a confidence interval, and the first seeds that did, so each can be replayed.
// A summary covers one contiguous block of seeds; shards of one sweep merge into exactly
// the summary of the whole.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "checks/expectations.hpp"
#include "checks/metrics.hpp"
#include "models/vocabulary.hpp"
#include "sim/engine.hpp"

namespace locksim {

// The most shards a sweep is split into.
constexpr std::uint32_t max_shards = 100000;

// The smallest failing (and unfinished) seeds a summary keeps per design.
constexpr std::size_t kept_failing_seeds = 10;

// The totals a run adds to besides "runs", in the order sweep_totals() lists them: whether
// it had a violation, whether it was unfinished, whether a fault reached the lock, then
// each metric sweeps total.
inline constexpr std::size_t counted_totals =
    3 + static_cast<std::size_t>(std::count_if(std::begin(metric_table), std::end(metric_table),
                                               [](const MetricSpec& spec) { return spec.swept; }));

// A run with a violation counts in "runs_with_violation" whichever violation it was, so
// each has a total and a column of its own to say which: every violation is swept. An
// efficiency lock's cost (in milliseconds, a cost and no failure of that lock) aside.
static_assert(std::all_of(std::begin(metric_table), std::end(metric_table),
                          [](const MetricSpec& spec) {
                              return !spec.violation() || spec.swept || spec.efficiency_cost;
                          }),
              "a violation that sweeps count in runs_with_violation has no total of its own: mark it swept");

// What one run (one seed of one design) added to its design's totals.
struct SeedCounts {
    std::uint64_t seed = 0;
    std::array<std::uint64_t, counted_totals> counts{};

    bool violated() const { return counts[0] > 0; }
    bool unfinished() const { return counts[1] > 0; }
    bool fault_reached() const { return counts[2] > 0; }
    bool counted_anything() const;
    bool operator==(const SeedCounts&) const = default;
};
// `violations`: the run's, as the verdict has them (checks/verdict.hpp): every one counts,
// declared by the design or not. `unfinished`: the horizon cut the run with work pending
// (DesignOutcome::unfinished). Whether a fault reached the lock is the metrics' own
// (RunMetrics::fault_reached_the_lock).
SeedCounts seed_counts(std::uint64_t seed, const RunMetrics& metrics, std::uint32_t violations, bool unfinished);

struct DesignTally {
    std::string name;
    std::uint64_t runs = 0;
    std::uint64_t runs_with_violation = 0;        // runs in which a checker flagged a violation (Verdict::violations)
    std::uint64_t runs_unfinished = 0;            // runs the horizon cut with work pending (cut_with_work_pending)
    std::uint64_t runs_fault_reached = 0;         // runs in which a fault reached the lock (fault_reached_the_lock)
    std::vector<std::uint64_t> failing_seeds;     // ascending, at most kept_failing_seeds
    std::vector<std::uint64_t> unfinished_seeds;  // the same, of the unfinished runs
    // Per metric, summed over the runs; kept for the metrics sweeps total (MetricSpec::swept)
    // and 0 for the others.
    std::array<std::uint64_t, metric_count> metric_totals{};

    // A shard's record of every run that counted anything, ascending by seed (SeedCounts):
    // its totals are their sums, so `merge` checks that they add up, and `merge --verify`
    // reruns seeds to compare. Kept only when `keeps_seeds` (a sweep's shards).
    bool keeps_seeds = false;
    std::vector<SeedCounts> seeds_counted;

    std::uint64_t& metric_total(Metric metric) { return metric_totals[static_cast<std::size_t>(metric)]; }
    std::uint64_t metric_total(Metric metric) const { return metric_totals[static_cast<std::size_t>(metric)]; }
    // The totals of SeedCounts::counts, in its order.
    std::array<std::uint64_t, counted_totals> counted() const;
    // Adds a run; throws SweepError when a total would pass 2^64 - 1.
    void add(const SeedCounts& run);
    void add(std::uint64_t seed, const RunMetrics& metrics, std::uint32_t violations, bool unfinished) {
        add(seed_counts(seed, metrics, violations, unfinished));
    }
    // A total by the name a sweep's "expect" uses (sweep_totals()).
    std::int64_t total(std::string_view name) const;
    // The same, to set it (a name of sweep_totals()).
    std::uint64_t& total_named(std::string_view name);
    // Adds another's runs (other seeds); throws SweepError when a total would pass 2^64 - 1.
    void merge(const DesignTally& other);
};

// The names of SeedCounts::counts, in its order.
std::vector<std::string_view> counted_total_names();

// What a sweep's "expect" may name, with what each counts, in the order its JSON lists
// them: its own counts of runs, then the metrics sweeps total.
std::vector<TotalSpec> sweep_totals();

struct SeedBlock {
    std::uint64_t first = 0;
    std::uint64_t count = 0;
};

// What produced a summary. `merge` compares these, never paths: the same scenario under
// another path merges, an edited one at the same path does not.
struct SweepProvenance {
    std::string scenario_sha256;  // of the scenario file's bytes, and of its files of samples
    std::string locksim_version;
    std::string commit;   // the git commit locksim was built from, or "unknown"
    std::string command;  // the command that reproduces these totals
    // Each file of samples the scenario reads, by the name the scenario gives it, with its
    // SHA-256 (Scenario::data_files): which one changed, when scenario_sha256 differs.
    std::map<std::string, std::string> data_files;
};

// Why two provenances' scenario_sha256 differ, for a message: "the file of samples
// pauses.txt changed {when} (its SHA-256 is … in {before_name}, … in {now_name})" when one of
// those did, else "the scenario file's bytes differ: it was edited {when}". `when`: "between
// the shards", "since".
std::string what_changed(const SweepProvenance& before, const std::string& before_name,
                         const std::map<std::string, std::string>& data_files_now, const std::string& now_name,
                         std::string_view when);

// What changes a sweep's totals besides the scenario, its seeds and the build.
struct SweepSettings {
    std::optional<std::string> design;                        // only this design (--design)
    std::uint64_t event_limit = Engine::default_event_limit;  // --max-events
    // Every run drawn given that this fault generator strikes (--given-fault): its index
    // in fault_generators.
    std::optional<std::uint64_t> given_fault;
    bool operator==(const SweepSettings&) const = default;
};

// A sweep whose runs were drawn given that a rare fault generator strikes at least once
// (scenarios/schema/given_fault.hpp): its rates are per run given that, and weighed by the
// probability of it they are the rates of incidents in runs where it strikes.
struct GivenFault {
    std::uint64_t generator = 0;  // its index in fault_generators
    double probability = 0;       // that a plain run draws at least one of its faults
    std::string fault;            // "fault_generators/0: a pause on exporter-1, …" for the text
    bool operator==(const GivenFault&) const = default;
};

struct SweepSummary {
    std::string scenario;
    std::string file;
    SeedBlock seeds;          // the whole sweep
    std::uint32_t shard = 1;  // 1-based index of this part
    std::uint32_t shards = 1;
    SeedBlock covered;  // the seeds this summary ran
    SweepSettings settings;
    std::optional<GivenFault> given;  // set when settings.given_fault is
    SweepProvenance provenance;
    std::vector<DesignTally> designs;
    Vocabulary words;  // what the scenario calls its things, for the text
    // Only in `merge --partial`: the shards whose totals this holds (ascending). The
    // summary then covers those shards' seeds, not `covered`.
    std::vector<std::uint32_t> partial_shards;
    // Only in the header of an explore shard (checks/explore_shard.hpp): what it explored,
    // as JSON, for `merge` to compare; empty for a sweep's.
    std::string explore;

    void merge_tallies(const SweepSummary& other);  // same sweep, other seeds
};

// The sweep behind a report's rates (runners/lesson_rates.hpp): a scenario whose faults
// are drawn at random teaches how often each design loses, not what one run did.
struct LessonRates {
    SweepSummary sweep;
    bool seeds_from_file = false;  // the file's "sweep" block chose them; else a default
    std::string command;           // the command that gives the same totals
    // Per design of sweep.designs: the command that replays its first failing seed, or "";
    // why its rate is only a lower bound (runs cut by the horizon, describe_unfinished), or "".
    std::vector<std::string> replay_first;
    std::vector<std::string> unfinished;

    // The tally of the design of this name, or null when the sweep left it out.
    const DesignTally* tally_of(const std::string& design) const {
        for (const auto& tally : sweep.designs)
            if (tally.name == design) return &tally;
        return nullptr;
    }
};

// Why a design's sweep cannot pass while runs were cut, or "" when none was: "3 of 100
// runs were cut by their horizon with work pending (runs_unfinished): what they would
// have done after it is not counted; replay the first: locksim run FILE --seed 7 --design
// fenced". A rate gate and a sweep block's expectations fail with it.
// `given_fault`: the sweep drew its runs given that generator strikes (--given-fault), and
// so must the replay.
std::string describe_unfinished(const DesignTally& tally, const std::string& program, const std::string& file,
                                std::optional<std::uint64_t> given_fault = std::nullopt);

// Why a design's sweep cannot vouch for its faults, or "" when a fault reached the lock in
// some run (runs_fault_reached): "no fault reached the lock (…) in 2000 runs{why},
// so its rate says nothing about the faults; see what each fault struck: locksim run FILE
// --seed 1 --design fenced". A rate gate and a sweep block's expectations fail with it.
// `first_seed`: the sweep's, the run shown; `given_fault` as for describe_unfinished; `why`:
// runners/vacuous_sweep.hpp's, or "".
std::string describe_vacuous(const DesignTally& tally, const std::string& program, const std::string& file,
                             std::uint64_t first_seed, std::optional<std::uint64_t> given_fault = std::nullopt,
                             std::string_view why = "");

// Ascending indices as Slurm's --array takes them: {2, 5, 6, 7} is "2,5-7".
std::string index_ranges(const std::vector<std::uint32_t>& indices);

// The command that reproduces a summary's totals: the thread count and output options are
// left out, since they never change them; --shard only when there is more than one.
std::string sweep_command_line(const std::string& file, SeedBlock seeds, const SweepSettings& settings,
                               std::uint32_t shard, std::uint32_t shards);
// The one that reproduces `summary`'s, or its shard `shard` (0: the whole sweep).
std::string sweep_command_line(const SweepSummary& summary, std::uint32_t shard);

// Shard i of n (1-based) of `seeds`: a contiguous block; the n blocks partition the seeds.
SeedBlock shard_block(SeedBlock seeds, std::uint32_t shard, std::uint32_t shards);

struct WilsonInterval {
    double low = 0;
    double high = 0;
};
// The 95 % Wilson score interval of `successes` out of `trials` (trials > 0).
WilsonInterval wilson_interval(std::uint64_t successes, std::uint64_t trials);

nlohmann::ordered_json sweep_json(const SweepSummary& summary);
// "provenance" as sweep and explore shards write it.
nlohmann::ordered_json provenance_json(const SweepProvenance& provenance);
// Adds a design's totals to `entry` by name, in the order of sweep_totals().
void add_totals_json(const DesignTally& tally, nlohmann::ordered_json& entry);

// Unusable shard files or sets of shards: the message is one line to print.
class SweepError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};
// A shard's per-seed counts (DesignTally::seeds_counted) as its JSON holds them: one row per
// seed, "OFFSET:C1,C2,…" (OFFSET from the first seed covered, then SeedCounts::counts),
// rows apart by a space: "3:1,0,1,0,2,0 17:0,0,0,0,1,0".
std::string seed_counts_text(const std::vector<SeedCounts>& seeds, std::uint64_t first);

// Throws SweepError unless a summary read from `file` adds up: its shard index and block,
// every design ran each covered seed once, no more violations than runs, failing and
// unfinished seeds the first of their runs inside the block, and, for a shard that keeps
// its per-seed counts, totals that are exactly their sums.
void check_arithmetic(const SweepSummary& summary, const std::string& file);

}  // namespace locksim
