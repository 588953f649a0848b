#pragma once
// Which of a design's faults changed anything, judged against runs without them. A fault
// is inert when
//  - the run without it tells the same story: every node does the same consequential
//    things in the same order (grants, expiries, failovers, beliefs, jobs, writes,
//    charges), whatever their timing: a holder paused for less than its lease, an idle
//    replica; or
//  - it missed the lock and every safety metric counts the same without it. A fault
//    misses the lock when it struck a server that did not hold it, a store that held no
//    lock, or no one (a pause, a crash); a clock step or slew, whose clock stays changed,
//    when its node holds no lock from then on either; a fault on links (a delay spike, a
//    loss burst, a partition) when it held back or lost no message of the lock: none to
//    or from a server holding it, none between the store's nodes while a lock was held.
//    A server only waiting for the lock, or a link that carried nothing while the fault
//    held, though the fault may change which waiter goes next.
// A design whose faults all missed, and whose expectations hold without them too, passes
// vacuously: its result says nothing about the faults, the silent false pass this exists
// to catch. A fault that reached the lock and changed nothing was absorbed, which is
// evidence.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checks/metrics.hpp"
#include "sim/trace.hpp"

namespace locksim {

// What a fault on links did to the messages sent across them while it held, as the
// messages that name it in the trace tell (message.held, message.lost).
struct MessagesTouched {
    std::size_t held = 0;  // held back by a delay spike
    std::size_t lost = 0;  // lost to a loss burst
    std::size_t cut = 0;   // lost to a partition
    // Of those, the ones of the lock: to or from a server holding it (by its own belief or
    // the store's grant, so a grant on its way and a release count; in a design without a
    // lock, a server running its job), or between two of the store's nodes while a lock
    // was held.
    std::size_t of_the_lock = 0;

    std::size_t total() const { return held + lost + cut; }
};

// Where one of the scenario's faults struck, from its fault.struck event.
struct FaultStrike {
    std::uint64_t sequence = 0;  // the fault.struck event
    NodeId target;               // no_node: a fault on links, or a role with no one in it
    std::string role;            // "server", "lock store", "network", "none", …
    // "held the lock", "was not holding the lock", … (servers); "held no lock" (the lock's
    // store); what it did to messages (the network).
    std::string was_doing;
    bool reached_the_lock = false;  // the test in the file comment
    MessagesTouched messages;       // the network only
};

// A run of the same world under the same seed with fewer faults.
struct Counterfactual {
    Trace trace;
    RunMetrics metrics;
};

// What leaving some faults out changed.
struct Difference {
    std::vector<std::string> nodes;    // whose story differs, by name
    std::vector<std::string> metrics;  // "<metric> 1 (0 without it)", safety metrics only

    bool no_story_change() const { return nodes.empty(); }
};

struct FaultEffect {
    std::size_t fault = 0;             // its place in the design's "faults" list
    std::vector<FaultStrike> struck;   // empty: its trigger never came
    std::optional<Instant> placed_at;  // its "at"; nothing when it waits for a "when"
    // Some strike reached the lock: it hit the holder (in a design without a lock, a
    // server running its job) or the store while a lock was held, changed the clock of a
    // node that held the lock then or later, or held back or lost a message of the lock.
    bool reached_the_lock = false;
    Difference without_it;

    bool missed() const { return !reached_the_lock; }
    bool inert() const { return without_it.no_story_change() || (missed() && without_it.metrics.empty()); }
};

struct FaultJudgement {
    std::vector<FaultEffect> each;  // the scenario's own faults, in file order
    // What the run with no faults at all (drawn ones too) does differently.
    Difference without_any;
    // The design's expectations all hold in that run without faults as well, and the
    // verdict's rule fails nothing there (checks/verdict.hpp).
    bool held_without_faults = false;
    // What that run charged: a run the faults stopped from charging anyone is no pass.
    std::int64_t charged_without_faults = 0;
    // Some fault, the scenario's or a drawn one, reached the lock (FaultEffect): if
    // nothing changed, the design absorbed it, which is evidence; a fault that only struck
    // waiting servers, an idle store, links that carried nothing of the lock, or no one
    // is not.
    bool reached_the_lock = false;
    std::size_t drawn_strikes = 0;  // strikes of faults drawn from the seed

    bool changed_nothing() const { return without_any.no_story_change(); }
    // Every fault, whatever its kind, missed the lock and together they changed no safety
    // metric. A design that passes like this passes vacuously.
    bool all_missed() const { return !reached_the_lock && without_any.metrics.empty(); }
};

// A run as difference() compares it: per node (the last: the world), its consequential
// events (kind and identifying fields, in order, without times) as text; and its metrics.
// Told once for the run being judged, however many runs it is compared with.
struct RunStory {
    std::vector<std::vector<std::string>> by_node;
    std::vector<std::string> node_names;
    const RunMetrics* metrics = nullptr;
};
RunStory story_of(const Trace& trace, const RunMetrics& metrics);

// The nodes, by name, whose consequential events differ between two runs of the same
// world, and the metrics that differ among those a fault must move to matter when it missed
// the lock (MetricSpec::safety: what judges a design's safety and its protections at work,
// not timings or retry counts), in the table's order: "<metric> 1 (0 {without_what})".
Difference difference(const RunStory& with, const Counterfactual& without, std::string_view without_what);

// `without_each[i]`: what leaving out fault i changed (difference() with the run without
// it, made as each such run ends, so that its trace goes then: a run with thousands of
// faults never holds thousands of traces); `without_any`: the run with no faults at all.
// `placed_at`: per fault of the design's own, its true time if it is placed with "at",
// nothing if it waits for an event ("when").
FaultJudgement judge_faults(const Trace& trace, const RunStory& story,
                            const std::vector<std::optional<Instant>>& placed_at, std::vector<Difference> without_each,
                            const Counterfactual& without_any, bool held_without_faults);

}  // namespace locksim
