#include "models/world/fault_schedule.hpp"

#include <algorithm>
#include <string>

namespace locksim {
namespace {

Instant time_of(const Fault& fault) {
    return std::visit([](const auto& f) { return f.at; }, fault);
}

Fault make_fault(const FaultGenerator& generator, const std::string& node, Instant at, RandomStream& random) {
    const Duration amount = generator.amount.draw(random);
    switch (generator.kind) {
        case FaultGenerator::Kind::pause: return PauseFault{node, at, amount, generator.cause, std::nullopt};
        case FaultGenerator::Kind::clock_step: return ClockStepFault{node, at, amount, std::nullopt, false};
        case FaultGenerator::Kind::crash:
            return CrashFault{node, at, generator.restarts ? std::optional<Duration>(amount) : std::nullopt,
                              std::nullopt, generator.crash_kind};
    }
    return PauseFault{node, at, amount, generator.cause, std::nullopt};
}

}  // namespace

std::vector<Fault> draw_fault_schedule(const std::vector<FaultGenerator>& generators, std::uint64_t seed) {
    std::vector<Fault> faults;
    for (std::size_t g = 0; g < generators.size(); ++g) {
        const FaultGenerator& generator = generators[g];
        for (const auto& node : generator.targets) {
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
