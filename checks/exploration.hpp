#pragma once
// What exploring a design found: every placement of a fault at every point where it can
// strike, whether each broke what the lock is for, and the windows — maximal runs of
// consecutive strike points on one node at which a fault does.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/expectations.hpp"
#include "checks/metrics.hpp"
#include "checks/run_outcome.hpp"
#include "checks/verdict.hpp"
#include "models/faults/explore_shape.hpp"
#include "models/vocabulary.hpp"
#include "sim/engine.hpp"
#include "sim/trace.hpp"

namespace locksim {

// A point where a fault can strike a node: right after one of its events in the run
// without faults (each is a moment a process of the node waits). A trigger on the nth
// event of that kind on that node strikes there again, whatever else the fault changes
// later.
struct StrikePoint {
    std::string node;
    std::uint64_t sequence = 0;  // of the event in the baseline trace
    Instant at;                  // true time
    std::string kind;
    int nth = 1;
    QueuePlace place;  // of the event in the baseline run's queue order
};

// Every length from `shortest` to `longest`, both included.
struct LengthSpan {
    Duration shortest;
    Duration longest;
};

// Every size from `from` to `to`, both included; signed (a clock steps back as well).
struct SizeSpan {
    Duration from;
    Duration to;
};

// One entry of the file's "faults", with its sizes resolved for this design.
struct FaultFamilyPlan {
    std::string kind;        // the family's key (models/faults/explore_shape.hpp)
    std::string size_field;  // the member that holds its sizes
    std::string cause;       // a pause's "kind"; empty for other families
    std::vector<std::string> targets;
    std::vector<std::optional<Duration>> sizes;  // crash: nullopt stays down
    std::vector<std::string> size_texts;         // as the file wrote them ("ttl+1ms")
    // Instead of sizes: a range of lengths, explored exactly into regions.
    std::optional<LengthSpan> lengths;
    // Or, for a family with a size rather than an end (a clock step), a range of sizes.
    std::optional<SizeSpan> size_range;
    std::vector<std::string> apart_from;  // a partition's other side (empty: every other node), a loss burst's
    bool one_way = false;                 // only what the target sends is cut or lost
    std::optional<Odds> loss;             // a loss burst's odds

    bool ranged() const { return lengths.has_value() || size_range.has_value(); }
    ExploreDetails details() const { return ExploreDetails{cause, apart_from, one_way, loss.value_or(Odds{1, 1})}; }
    // "gc pause", "crash", "one-way partition", "loss burst".
    std::string name() const;
    // What its regions rest on besides the runs that found them, in short (docs/explore.md,
    // "What it assumes"); none for a list of sizes, which claims only the points it ran.
    std::vector<std::string_view> assumptions() const;
    // The targets, and the other side when the file named it: "server-1, server-2",
    // "server-1 apart from lock-store", "server-1 with lock-store (loss 1/2)".
    std::string targets_text() const;
};

// Instants from `from`, up to but not including `to`.
struct InstantRange {
    Instant from;
    Instant to;

    bool contains(Instant t) const { return from <= t && t < to; }
};

// A region of one family's faults on one node: every fault that starts at an instant of
// `start`, ends at an instant of `end` after it starts, and lasts a length of the family's
// range breaks the design in the same ways, `violations`. Faults of that family on that
// node outside every region break nothing, for starts up to the end of the run without
// faults (a later start finds nothing left to break).
// A family with a size rather than an end (a clock step) has `size` instead of `end`: the
// faults that start at an instant of `start` with a size from size->from to size->to
// (both tried sizes, both included) break the design in `violations`; the outcome changes
// within 1 ms outside them (runners/size_regions.hpp says what is and is not proven).
struct FaultRegion {
    std::size_t family = 0;
    std::string node;
    InstantRange start;
    InstantRange end;  // unused when `size` is set
    std::uint32_t violations = 0;
    // One fault of the region, to replay with `run --faults`: its start, and its length
    // (or its size, for a sized family).
    Instant example_start;
    Duration example_size;
    std::optional<SizeSpan> size;
};

// A stretch of ends of one start class's faults, from `from` up to but not including `to`,
// that all give `violations` (runners/fault_regions.hpp).
struct EndSegment {
    Instant from;
    Instant to;
    std::uint32_t violations = 0;
    bool operator==(const EndSegment&) const = default;
};

// A stretch of one start class's sizes, tried sizes from `from` to `to`, both included,
// that all give `violations` (runners/size_regions.hpp). The next stretch starts within
// 1 ms of `to` (or across 0: a step of 0 is no fault).
struct SizeSegment {
    Duration from;
    Duration to;
    std::uint32_t violations = 0;
    bool operator==(const SizeSegment&) const = default;
};

// What one unit of an exploration's work found, the piece a shard runs and `merge` joins
// (runners/explore_runner.hpp): a placement that runs, its violations; or a start class of
// a family explored over a range, the segments of its ends (or of its sizes, for a sized
// family) and the runs they took.
struct UnitOutcome {
    std::uint32_t violations = 0;
    std::vector<EndSegment> segments;
    std::vector<SizeSegment> sizes;
    std::uint64_t runs = 0;
    bool operator==(const UnitOutcome&) const = default;
    // Some run of the unit broke the design.
    bool violated() const;
};

struct FaultChoice {
    std::size_t family = 0;
    std::size_t point = 0;  // index into DesignExploration::points
    std::size_t size = 0;
};

struct PlacementOutcome {
    std::vector<FaultChoice> faults;  // one per depth
    std::uint32_t violations = 0;
};

struct ExploreWindow {
    std::size_t family = 0;
    std::string node;
    std::size_t first = 0;  // the first and last violating strike points
    std::size_t last = 0;
    std::optional<std::size_t> safe_before;  // the strike points next to the window, safe for every size
    std::optional<std::size_t> safe_after;
    std::size_t first_size = 0;     // the smallest violating size at `first`, at `last`,
    std::size_t last_size = 0;      // and over the whole window
    std::size_t shortest_size = 0;  // (indices into the family's sizes)
    std::uint32_t violations = 0;
    std::uint64_t violating_placements = 0;
    // Whether "the shortest that does it" goes for every longer size too: the first
    // placement (in time, then size order) of a size longer than `shortest_size` that is
    // safe at a strike point of the window where `shortest_size` violates. None: every
    // longer size tried violates wherever the shortest does.
    std::optional<FaultChoice> longer_safe;
};

// Whether size `a` is longer than `b`: further from nothing the same way (a clock step
// forward is never longer than one back); a crash that stays down outlasts every restart.
bool longer_size(const std::optional<Duration>& a, const std::optional<Duration>& b);

struct DesignExploration {
    std::string name;
    LockPurpose purpose = LockPurpose::correctness;
    Trace baseline;        // the run without the file's faults
    Instant baseline_end;  // when it stopped
    std::uint32_t baseline_violations = 0;
    std::vector<FaultFamilyPlan> families;
    std::vector<StrikePoint> points;           // in trace order
    std::vector<PlacementOutcome> placements;  // in the order planned
    // Depth 2: the ordered pairs never planned (mirror images, a placement with itself).
    std::uint64_t repeated_pairs = 0;
    // The placements actually run; each of the others shares the outcome of an equivalent
    // one that ran (checks/equivalent_placements.hpp).
    std::uint64_t placements_run = 0;
    std::vector<ExploreWindow> windows;  // depth 1 only
    // The families explored over a range of lengths or sizes: their violating regions, in
    // family, node, start and end (or size) order, and the runs that found them.
    std::vector<FaultRegion> regions;
    std::uint64_t region_runs = 0;
    std::vector<ExpectationResult> expectations;

    std::uint64_t placements_pruned() const { return placements.size() - placements_run; }
    std::uint64_t violating() const;
    std::uint64_t count_of(Metric violation) const;         // placements showing it
    std::uint64_t regions_showing(Metric violation) const;  // regions showing it
    std::int64_t total(std::string_view name) const;        // by a name of explore_totals()
    bool held() const;
};

struct Exploration {
    std::string file;
    std::string name;
    std::uint64_t seed = 0;
    int depth = 1;
    std::vector<DesignExploration> designs;

    bool held() const;
};

// The names of an exploration's totals, as an explore block's "expect" writes them.
namespace explore_total {
inline constexpr std::string_view placements = "placements";
inline constexpr std::string_view violating_placements = "violating_placements";
inline constexpr std::string_view regions = "regions";
inline constexpr std::string_view windows = "windows";
}  // namespace explore_total

// What an explore block's "expect" may name, an exploration's own totals per design, with
// what each counts.
std::vector<TotalSpec> explore_totals();

// The windows of a depth-1 exploration: per family and node, maximal runs of strike
// points at which some size violates, in family, node and time order.
std::vector<ExploreWindow> find_windows(const DesignExploration& design);

// The fault as a scenario file writes it, ready to paste into "faults":
// {"pause": "server-1", "for": "40s", "kind": "gc", "when": {"event": "job.preparing", "node": "server-1", "nth": 2}}
nlohmann::ordered_json fault_object(const DesignExploration& design, const FaultChoice& choice);
// A region's example fault, ready to paste into "faults":
// {"pause": "server-1", "at": "2s", "for": "29s", "kind": "gc"}
nlohmann::ordered_json region_fault(const DesignExploration& design, const FaultRegion& region);
// All of a placement's faults: a "faults" list.
nlohmann::ordered_json placement_faults(const DesignExploration& design, const PlacementOutcome& placement);

// The scenario's words, for what people read: every design runs the same world's.
Vocabulary words_of(const DesignExploration& design);
Vocabulary words_of(const Exploration& exploration);

}  // namespace locksim
