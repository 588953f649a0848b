#include "models/world/fault_schedule.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace locksim {
namespace {

// One target of a generator: the name its draws' stream is known by, and the fault it
// suffers before a draw sets its time and amounts.
struct Target {
    std::string stream;
    Fault shape;
};

// The generator's targets in the order it lists them. A fault on a node: one per node or
// role, its stream named for it. A fault on a link: one per link, its stream "network"
// when there is one link (the name a single-link generator always had, so its draws stay
// as they were) and named by its ends when there are several; none listed, the shape's own
// link. A partition: one, "network".
std::vector<Target> targets_of(const FaultGenerator& generator) {
    std::vector<Target> targets;
    std::visit(
        [&](const auto& shape) {
            if constexpr (requires { shape.node; }) {
                for (const auto& node : generator.targets) {
                    auto one = shape;
                    one.node = node;
                    targets.push_back({node, one});
                }
            } else if constexpr (requires { shape.from; }) {
                if (generator.links.empty()) targets.push_back({"network", shape});  // the shape's own link
                for (const auto& [from, to] : generator.links) {
                    auto one = shape;
                    one.from = from;
                    one.to = to;
                    targets.push_back({generator.links.size() == 1 ? "network" : from + "->" + to, one});
                }
            } else {
                targets.push_back({"network", shape});
            }
        },
        generator.shape);
    return targets;
}

// `shape` struck at `at`, with its amounts drawn in the order its family reads them.
Fault drawn_fault(const Fault& shape, Instant at, const DrawnAmounts& amounts, RandomStream& random) {
    Fault fault = shape;
    std::visit(
        [&](auto& f) {
            f.at = at;
            f.draw(amounts, random);
        },
        fault);
    return fault;
}

// A generator given to strike: the first of its faults over all `streams`, and on which.
// The first of n Poisson streams of mean m is exponential of mean m / n; given that it
// falls before the window closes, inverting its law cut at the window's length T gives
// t = -(m / n) ln(1 - u (1 - e^(-n T / m))). By the streams' lack of memory, each then
// draws on from t as if nothing had been asked of it.
struct FirstFault {
    Instant at;
    std::size_t stream = 0;
};
FirstFault first_fault(const FaultGenerator& generator, std::size_t streams, const std::string& prefix,
                       std::uint64_t seed) {
    RandomStream random(seed, prefix + "given");
    const double mean = static_cast<double>(generator.mean_interval.ns) / static_cast<double>(streams);
    const double window = static_cast<double>((generator.until - generator.from).ns);
    const double u = static_cast<double>(random.next_u64() >> 11) * 0x1.0p-53;  // [0, 1)
    const double t = -mean * std::log1p(u * std::expm1(-window / mean));
    // Rounding may put t a nanosecond past the window: keep it inside.
    const auto offset = std::min(static_cast<std::int64_t>(t), (generator.until - generator.from).ns - 1);
    return FirstFault{generator.from + Duration{offset}, static_cast<std::size_t>(random.below(streams))};
}

// Each target its own stream of faults.
void draw_apart(const FaultGenerator& generator, const std::string& prefix, std::uint64_t seed,
                std::vector<Fault>& faults) {
    const std::vector<Target> targets = targets_of(generator);
    std::optional<FirstFault> first;
    if (generator.given) first = first_fault(generator, targets.size(), prefix, seed);
    for (std::size_t i = 0; i < targets.size(); ++i) {
        const Target& target = targets[i];
        RandomStream random(seed, prefix + target.stream);
        Instant from = generator.from;
        if (first) {
            if (first->stream == i) faults.push_back(drawn_fault(target.shape, first->at, generator.amounts, random));
            from = first->at;
        }
        for (Instant at = from + random.exponential(generator.mean_interval); at < generator.until;
             at += random.exponential(generator.mean_interval))
            faults.push_back(drawn_fault(target.shape, at, generator.amounts, random));
    }
}

// One stream for all targets: each draw strikes every target at the same instant, each
// drawing its amounts from the same point of the stream, so all get the same amounts.
void draw_at_once(const FaultGenerator& generator, const std::string& prefix, std::uint64_t seed,
                  std::vector<Fault>& faults) {
    const std::vector<Target> targets = targets_of(generator);
    RandomStream random(seed, prefix + "at_once");
    const Instant first = generator.given ? first_fault(generator, 1, prefix, seed).at
                                          : generator.from + random.exponential(generator.mean_interval);
    for (Instant at = first; at < generator.until; at += random.exponential(generator.mean_interval)) {
        RandomStream after = random;
        for (const Target& target : targets) {
            after = random;
            faults.push_back(drawn_fault(target.shape, at, generator.amounts, after));
        }
        random = after;
    }
}

}  // namespace

double strike_probability(const FaultGenerator& generator) {
    const double streams = generator.at_once ? 1.0 : static_cast<double>(targets_of(generator).size());
    return -std::expm1(-streams * static_cast<double>((generator.until - generator.from).ns) /
                       static_cast<double>(generator.mean_interval.ns));
}

std::vector<Fault> draw_fault_schedule(const std::vector<FaultGenerator>& generators, std::uint64_t seed) {
    std::vector<Fault> faults;
    for (std::size_t g = 0; g < generators.size(); ++g) {
        const std::string prefix = "faults/" + std::to_string(g) + "/";
        if (generators[g].at_once)
            draw_at_once(generators[g], prefix, seed, faults);
        else
            draw_apart(generators[g], prefix, seed, faults);
    }
    std::stable_sort(faults.begin(), faults.end(),
                     [](const Fault& a, const Fault& b) { return time_of(a) < time_of(b); });
    return faults;
}

}  // namespace locksim
