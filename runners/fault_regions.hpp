#pragma once
// Explore a fault that holds something — a paused process, a crashed node until its
// restart — exactly, over every start and every end, instead of a list of lengths.
//
// Why a finite number of runs covers every (start, end) pair:
//   - Starts. Between two of the target's events in the run without faults the target
//     does nothing and hears nothing (a message's arrival is an event of the node it
//     reaches), so a fault that starts anywhere in that gap finds the same world: every
//     start of the gap is one start class, tried at its first instant.
//   - Ends. While the fault holds, the rest of the world runs the same whatever the end
//     will be: the run with the longest length (the held run) is every shorter run up
//     to its end. So the end can only matter through where it lands among the held
//     run's events, and after it through how the target's next steps interleave with
//     them. Explore runs one end just after each event of the held run; where two
//     neighbouring ends disagree it bisects to the nanosecond until every change of
//     outcome between them is found.
// The outcome of a (start, end) pair is the set of violations its run shows.
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks/exploration.hpp"
#include "models/world/world_spec.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario.hpp"
#include "sim/trace.hpp"

namespace locksim {

// The most runs one exact exploration (or one shard of it) may plan, over all its families,
// before it starts the bulk of them.
constexpr std::uint64_t max_region_runs = 2'000'000;
// The events the runs of one exploration (or shard) may process, each run counted at the
// events of its design's run without faults: about ten minutes of runs on two threads of
// the 2-core machine the project is measured on (a file of 600 customers planned 1.45e9
// events and explored in 361 s).
constexpr std::uint64_t max_explore_events = 2'500'000'000;
// The runs it may make, as a multiple of those it may plan: a backstop, so that a search
// whose changes of branches cost far more than planned ends with the reason rather than
// run on for hours. The shipped explores made 1.07 (partition.json) to 2.14 (gc-pause-40s)
// times the runs they planned, so a count of shards advised from the runs planned passes
// this too.
constexpr std::uint64_t runs_made_per_planned = 4;

struct RegionSearch {
    const Design* design = nullptr;    // whose runs are judged
    const WorldSpec* quiet = nullptr;  // its world without the file's faults
    std::uint64_t seed = 0;
    std::uint64_t event_limit = 0;
    unsigned threads = 1;
    // Called now and then with the start classes done and their total.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress;
    // For the refusal past max_region_runs: the command that explores the file (without
    // --shard), and how many shards this run is one of.
    std::string command;
    std::uint32_t shards = 1;
    // The region runs the exploration (or shard) planned for the families searched before
    // this one, which refuse_past_limit counts against the limit too and adds to.
    std::uint64_t* planned_before = nullptr;
    // The region runs made so far, over every family and design, against the same limit.
    std::atomic<std::uint64_t>* runs_made = nullptr;
    // The limit on the runs planned (max_region_runs, lower only in tests); the runs made
    // may reach runs_made_per_planned times it.
    std::uint64_t run_limit = max_region_runs;
};

// Thrown when the runs planned pass the limit, for the exploration's runner: it alone sees
// every unit of the shard, and so how many shards bring each under the limit.
struct RegionRunsPastLimit {
    std::string design;
    std::string family;         // its kind
    std::uint64_t planned = 0;  // by its start classes
    std::size_t classes = 0;    // of the family, in this shard
    std::uint64_t before = 0;   // by the families searched before it
};

// One start class: every start from `first` up to `last`, both included, finds the same
// world (see above).
struct StartClass {
    std::string node;
    Instant first;
    Instant last;
};

// The start classes of `design.families[family]` (which has a range) on each of its
// targets, in node and start order, from the run without faults (`design.baseline`).
std::vector<StartClass> family_start_classes(const DesignExploration& design, std::size_t family);

// Searches `classes`, some of the family's: first their held runs, which say how many runs
// the rest will take (an ExploreError past max_region_runs, naming the command that shards
// it), then every end. One outcome per class, with its segments of ends and its runs.
std::vector<UnitOutcome> search_start_classes(const DesignExploration& design, std::size_t family,
                                              const std::vector<StartClass>& classes, const RegionSearch& search);

// The runs searching one start class of a family over a range of lengths will take at
// least: its held run, made here, says. (search_start_classes counts the same.)
std::uint64_t start_class_runs_planned(const DesignExploration& design, std::size_t family, const StartClass& starts,
                                       const RegionSearch& search);

// Runs the design's world without the file's faults with one fault of `plan` on `node`
// from `at`, of `size` (a length, or a clock step's size), and checks it; a run that runs
// away names that fault.
CheckedRun run_one_fault(const DesignExploration& design, const FaultFamilyPlan& plan, const RegionSearch& search,
                         const std::string& node, Instant at, Duration size, bool keep_trace);

// Throws RegionRunsPastLimit when the `planned` runs of `classes` start classes of
// `plan`, with those planned before them (search.planned_before), pass search.run_limit.
void refuse_past_limit(const DesignExploration& design, const FaultFamilyPlan& plan, std::uint64_t planned,
                       std::size_t classes, const RegionSearch& search);

// The violating regions of the family, from every one of its start classes and their
// outcomes, in node, start and end order.
std::vector<FaultRegion> join_regions(const DesignExploration& design, std::size_t family,
                                      const std::vector<StartClass>& classes, const std::vector<UnitOutcome>& outcomes);

}  // namespace locksim
