#include "runners/vacuous_sweep.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "sim/duration_text.hpp"

namespace locksim {

// It has none, or a generator's window closes before the job starts. Otherwise they
// struck the wrong place or time, which one run shows fault by fault.
std::string why_no_fault_reached(const Scenario& scenario, const std::string& name) {
    const auto design =
        std::find_if(scenario.designs.begin(), scenario.designs.end(), [&](const Design& d) { return d.name == name; });
    if (design == scenario.designs.end()) return "";
    const WorldSpec& world = design->world;
    if (world.faults.empty() && world.fault_generators.empty())
        return "; the design has no faults, placed or drawn: its runs test timing alone";
    std::vector<std::string> early;
    for (std::size_t g = 0; g < world.fault_generators.size(); ++g)
        if (const Instant until = world.fault_generators[g].until; until <= world.job.starts_at)
            early.push_back(fmt::format("fault_generators/{}'s window ends at {}", g, format_seconds(until)));
    if (!early.empty())
        return fmt::format("; {} and the job starts at {}", fmt::join(early, ", "),
                           format_seconds(world.job.starts_at));
    return "; its faults struck servers that did not hold the lock, the store while it held none, links that "
           "carried nothing of the lock, or no one (to strike whoever holds it then, target {\"role\": \"holder\"})";
}

}  // namespace locksim
