#pragma once
// What the tests share: Catch prints durations and instants exactly, as format_duration
// spells them; at(40s) names an instant after midnight; events_of picks a trace apart.
#include <catch2/catch.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "sim/duration_text.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"

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

// A process that sleeps `length` on its node and notes the true time it woke.
inline Task<void> sleeper(Host host, Duration length, std::vector<Instant>& woke) {
    co_await host.sleep(length);
    woke.push_back(host.engine().now());
}

inline std::vector<const TraceEvent*> events_of(const Engine& engine, std::string_view kind) {
    std::vector<const TraceEvent*> found;
    for (const auto& event : engine.trace().events())
        if (event.kind == kind) found.push_back(&event);
    return found;
}
}  // namespace locksim
