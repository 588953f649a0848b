#pragma once
// What the tests share: Catch prints durations and instants exactly, as format_duration
// spells them; at(40s) names an instant after midnight, monotonic(5s) a reading of a
// node's monotonic clock; events_of picks a trace apart; five_sigma and points_of judge
// random durations.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/distribution.hpp"
#include "sim/duration_text.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/trace.hpp"

namespace Catch {
template <>
struct StringMaker<locksim::Duration> {
    static std::string convert(locksim::Duration d) { return locksim::format_duration(d); }
};
template <>
struct StringMaker<locksim::Instant> {
    static std::string convert(locksim::Instant t) { return "t=" + locksim::format_duration(t - locksim::midnight); }
};
}  // namespace Catch

namespace locksim {
inline Instant at(Duration since_midnight) {
    return midnight + since_midnight;
}

// A reading of a node's monotonic clock, which starts at 0 when the run does.
inline Instant monotonic(Duration since_boot) {
    return Instant{0} + since_boot;
}

// A process that sleeps `length` on its node and notes the true time it woke.
inline Task<void> sleeper(Host host, Duration length, std::vector<Instant>& woke) {
    co_await host.sleep(length);
    woke.push_back(host.engine().now());
}

// The events of `kind` in a trace, in order; only `node`'s if given.
inline std::vector<const TraceEvent*> events_of(const Trace& trace, std::string_view kind,
                                                std::optional<NodeId> node = {}) {
    std::vector<const TraceEvent*> found;
    for (const auto& event : trace.events())
        if (event.kind == kind && (!node || event.node == *node)) found.push_back(&event);
    return found;
}
inline std::vector<const TraceEvent*> events_of(const Engine& engine, std::string_view kind) {
    return events_of(engine.trace(), kind);
}

// Five standard deviations of a frequency whose probability is p over n draws: far
// outside chance, close enough to catch a wrong shape.
inline double five_sigma(double p, std::size_t n) {
    return 5 * std::sqrt(p * (1 - p) / static_cast<double>(n));
}

// The points of a distribution given by quantiles (a histogram, an observed file).
inline std::vector<QuantilePoint> points_of(const DurationDistribution& distribution) {
    REQUIRE(distribution.shape == DurationDistribution::Shape::quantiles);
    return *distribution.points;
}
}  // namespace locksim
