#include "models/world/fault_schedule.hpp"

#include <algorithm>
#include <string>

namespace locksim {
namespace {

// The generator's fault at `at`, on `target` if it strikes a node, with its amounts drawn
// in the order its family reads them.
Fault make_fault(const FaultGenerator& generator, const std::string& target, Instant at, RandomStream& random) {
    Fault fault = generator.shape;
    std::visit(
        [&](auto& f) {
            f.at = at;
            if constexpr (requires { f.node; }) f.node = target;
            f.draw(generator.amounts, random);
        },
        fault);
    return fault;
}

// A fault between nodes has one stream, named for the generator alone.
const std::vector<std::string> between_nodes{"network"};

}  // namespace

std::vector<Fault> draw_fault_schedule(const std::vector<FaultGenerator>& generators, std::uint64_t seed) {
    std::vector<Fault> faults;
    for (std::size_t g = 0; g < generators.size(); ++g) {
        const FaultGenerator& generator = generators[g];
        const std::vector<std::string>& streams = generator.targets.empty() ? between_nodes : generator.targets;
        for (const auto& node : streams) {
            RandomStream random(seed, "faults/" + std::to_string(g) + "/" + node);
            for (Instant at = generator.from + random.exponential(generator.mean_interval); at < generator.until;
                 at += random.exponential(generator.mean_interval)) {
                faults.push_back(make_fault(generator, node, at, random));
            }
        }
    }
    std::stable_sort(faults.begin(), faults.end(),
                     [](const Fault& a, const Fault& b) { return time_of(a) < time_of(b); });
    return faults;
}

}  // namespace locksim
