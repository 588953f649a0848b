#pragma once
// A scenario's "explore" block: the faults to try at every point where they can strike,
// and what each design should show over all of those placements.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "checks/expectations.hpp"
#include "models/faults/explore_shape.hpp"
#include "sim/odds.hpp"
#include "sim/time.hpp"

namespace locksim {

// A fault's size as the file writes it: "40s", or relative to the design's lock TTL —
// "ttl", "ttl+1ms", "ttl-1ms", "ttl/3" — so the lease's own boundaries are always tried.
struct SizeExpression {
    std::string text;  // as written
    bool from_ttl = false;
    Duration offset{};  // a fixed size; with the TTL, what is added (negative: taken away)
    std::int64_t divisor = 1;

    Duration resolve(Duration ttl) const { return from_ttl ? Duration{ttl.ns / divisor} + offset : offset; }
};

// Every length from `from` to `to`, both included: {"from": "1ms", "to": "2m"}. Explore
// tries a family with an end over such a range exactly, every start against every end.
struct LengthRange {
    SizeExpression from;
    SizeExpression to;
};

// One entry of "faults": a kind of fault, the nodes it may strike, and its sizes.
struct ExploreFaultFamily {
    const ExploreShape* shape = nullptr;  // the family, from the list of faults
    std::vector<std::string> targets;
    // The values of the family's size_field (signed where the family says so); nullopt: the
    // fault has no end (a crash that stays down).
    std::vector<std::optional<SizeExpression>> sizes;
    std::optional<LengthRange> range;     // instead of `sizes`: explored exactly
    std::string cause;                    // a pause's "kind" ("gc" unless the file says otherwise); empty for others
    std::vector<std::string> apart_from;  // a partition's other side (empty: every other node), a loss burst's
    bool one_way = false;                 // only what the target sends is cut or lost
    std::optional<Odds> loss;             // a loss burst's odds, as the file gave them
};

// The most faults in one placement.
constexpr int max_explore_depth = 2;
// The most placements one design may try: depth 2 grows with the square of depth 1's.
constexpr std::uint64_t max_explore_placements = 1'000'000;

struct ExploreSpec {
    std::vector<ExploreFaultFamily> faults;
    int depth = 1;  // faults per placement
    // By design name: totals of explore_totals() (checks/exploration.hpp) compared with counts.
    std::map<std::string, std::vector<Expectation>> expect;
};

// A scenario's "sweep" block: `locksim check` runs these seeds and compares each design's
// totals with what it expects.
struct SweepSpec {
    std::uint64_t first_seed = 1;
    std::uint64_t seeds = 0;
    // Every run drawn given that this fault generator strikes, as `sweep --given-fault N`.
    std::optional<std::uint64_t> given_fault;
    // By design name: totals of sweep_totals() (checks/sweep_summary.hpp) compared with counts.
    std::map<std::string, std::vector<Expectation>> expect;
};

// The most seeds a sweep block may ask `check` to run.
constexpr std::uint64_t max_sweep_block_seeds = 1'000'000;

}  // namespace locksim
