#pragma once
// Systematic fault placement: for each design, the run without the file's faults gives
// the points where a fault can strike; every fault of the file's "explore" block is then
// tried at every one of them (or every pair, at depth 2), each in a run of its own.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "checks/exploration.hpp"
#include "scenarios/schema/scenario.hpp"
#include "sim/engine.hpp"

namespace locksim {

// The exploration asked for cannot be done (too many placements, a size that resolves
// to nothing): the message says why and what to change.
class ExploreError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ExploreOptions {
    std::optional<std::string> design;  // only this one (the caller has checked it exists)
    std::optional<std::uint64_t> seed;  // instead of the file's
    unsigned threads = 1;
    std::uint64_t event_limit = Engine::default_event_limit;
    // Run each set of equivalent placements once (checks/equivalent_placements.hpp); false
    // runs every placement, to measure the saving or check it.
    bool prune = true;
    // Called now and then with the placements done and the total, over all designs.
    std::function<void(std::uint64_t done, std::uint64_t total)> progress = [](std::uint64_t, std::uint64_t) {};
};

// The scenario must have an "explore" block.
Exploration run_explore(const Scenario& scenario, const ExploreOptions& options);

}  // namespace locksim
