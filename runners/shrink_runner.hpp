#pragma once
// Delta debugging against virtual time: from any run that breaks what a design's lock is
// for, the smallest scenario file that still does. Drawn faults become fixed ones; then
// faults, customers, servers, links and clocks are removed, pauses, steps and delays
// shortened, times replaced by the events they follow, and the horizon moved in, each
// kept only if the run still shows the same kind of violation. The result is a normal
// scenario file whose "expect" pins the violation.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/engine.hpp"

namespace locksim {

// Nothing to shrink: the run shows no violation, or the design does not exist.
class ShrinkError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct ShrinkRequest {
    std::string file;  // for messages and the description
    std::string text;  // the scenario file's bytes
    std::string design;
    std::uint64_t seed = 0;
    std::optional<std::string> faults;  // JSON: these faults instead of the file's (an explore placement)
    // The seed is one of a sweep given that fault_generators/N strikes: its faults are drawn
    // so (sweep --given-fault N).
    std::optional<std::uint64_t> given_fault;
    std::uint64_t event_limit = Engine::default_event_limit;
};

struct ShrinkResult {
    nlohmann::ordered_json minimal;  // the scenario file
    std::string violation;           // the name of the violation's metric it pins
    std::vector<std::string> steps;  // what was removed or shortened, in order
    std::uint64_t runs = 0;          // simulations it took
};

ShrinkResult shrink(const ShrinkRequest& request);

}  // namespace locksim
