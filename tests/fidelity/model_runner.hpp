#pragma once
// Runs a fidelity case (tests/fidelity/README.md) against the model stores in virtual time
// and answers in the form the real servers' recordings take (tests/fidelity/golden/), so
// that the two can be compared step by step. Every step is read from the run's trace: who
// holds the lock is what the store's own events say, as a checker would read it.
#include <nlohmann/json.hpp>

namespace locksim::fidelity {

// The results of `case_file` on the model: {"name", "store", "server": "locksim model",
// "results": [{"step", "do", …}]}. Throws std::invalid_argument on a case it cannot read.
nlohmann::json run_on_model(const nlohmann::json& case_file);

}  // namespace locksim::fidelity
