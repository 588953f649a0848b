#include "models/world/fault_schedule.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

namespace locksim {
namespace {

Instant time_of(const Fault& fault) {
    return std::visit([](const auto& f) { return f.at; }, fault);
}

// The generator's fault at `at`, on `target` if it strikes a node, with its amounts drawn
// (the amount first, then a delay spike's extra: the order a stream is read in is part
// of every seed's schedule).
Fault make_fault(const FaultGenerator& generator, const std::string& target, Instant at, RandomStream& random) {
    Fault fault = generator.shape;
    const Duration amount = generator.amount.draw(random);
    std::visit(
        [&](auto& f) {
            using F = std::decay_t<decltype(f)>;
            f.at = at;
            if constexpr (std::is_same_v<F, PauseFault>) {
                f.node = target;
                f.length = amount;
            } else if constexpr (std::is_same_v<F, ClockStepFault>) {
                f.node = target;
                f.delta = amount;
            } else if constexpr (std::is_same_v<F, CrashFault>) {
                f.node = target;
                if (f.restart_after) f.restart_after = amount;  // the shape says whether it comes back
            } else if constexpr (std::is_same_v<F, PartitionFault>) {
                f.heal_after = amount;
            } else if constexpr (std::is_same_v<F, DelaySpikeFault>) {
                f.length = amount;
                f.extra = generator.extra->draw(random);
            } else {
                static_assert(std::is_same_v<F, LossBurstFault>);
                f.length = amount;
            }
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
