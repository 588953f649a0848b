// models/faults/clock_events.hpp: a clock fault's trace events read back, as the checkers
// and reports read them, against what the engine did to the clock.
#include <catch2/catch.hpp>

#include "models/faults/clock_events.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// The one wall-clock change the engine recorded, whichever kind it is.
const TraceEvent& only_change(const Engine& engine) {
    const TraceEvent* found = nullptr;
    for (const auto& event : engine.trace().events())
        if (changes_wall_clock(event)) {
            REQUIRE(found == nullptr);
            found = &event;
        }
    REQUIRE(found != nullptr);
    return *found;
}

}  // namespace

TEST_CASE("a step moves the wall clock by all of it at once, and reads as a jump") {
    Engine engine(1);
    const NodeId node = engine.add_node("lock-store");
    engine.schedule_at(at(10_s), no_node, [&] { engine.step_wall_clock(node, -5_s); });
    engine.run(at(1_min));
    const TraceEvent& step = only_change(engine);
    CHECK(wall_clock_moved(step, step.at) == -5_s);
    CHECK(wall_clock_moved(step, at(1_min)) == engine.wall_now(node) - engine.now());
    CHECK(wall_clock_change_text(step) == "wall clock steps from 00:00:10.000 to 00:00:05.000");
    CHECK(wall_clock_change_clause(step) == "stepped 5s back at 10.000s");
    CHECK(wall_clock_change_cause(step, "lock-store", "expired the lease 5s early") ==
          "lock-store's wall clock jumped 5s back at 10.000s and expired the lease 5s early");
}

TEST_CASE("a slew has moved the wall clock as far as 500 ppm of the time since it began, then all of it") {
    Engine engine(1);
    const NodeId node = engine.add_node("lock-store");
    engine.schedule_at(at(10_s), no_node, [&] { engine.slew_wall_clock(node, 100_ms); });
    std::vector<std::pair<Instant, Duration>> readings;  // (true time, the engine's offset)
    for (Duration t : {10_s, 110_s, 150_s, 300_s})
        engine.schedule_at(at(t) + 1_ms, no_node,
                           [&] { readings.emplace_back(engine.now(), engine.wall_now(node) - engine.now()); });
    engine.run(at(10_min));
    const TraceEvent& slew = only_change(engine);
    // The engine corrects in 50us steps every 100 ms; the reader's smooth rate is never a step away.
    for (const auto& [t, offset] : readings) {
        const Duration gap = wall_clock_moved(slew, t) - offset;
        CHECK(gap >= -microseconds(50));
        CHECK(gap <= microseconds(50));
    }
    CHECK(wall_clock_moved(slew, at(150_s)) == 70_ms);
    CHECK(wall_clock_change_text(slew) == "NTP slews its wall clock by 100ms over 200s");
    CHECK(wall_clock_change_clause(slew) == "NTP slewed by 100ms from 10.000s");
    CHECK(wall_clock_change_cause(slew, "lock-store", "expired the lease 1s early") ==
          "NTP slewed lock-store's wall clock 100ms forward from 10.000s, and it expired the lease 1s early");
}

TEST_CASE("a backward slew moves the clock back no further than its correction") {
    Engine engine(1);
    const NodeId node = engine.add_node("lock-store");
    engine.schedule_at(at(1_s), no_node, [&] { engine.slew_wall_clock(node, -20_ms); });
    engine.run(at(1_min));
    const TraceEvent& slew = only_change(engine);
    CHECK(wall_clock_moved(slew, at(11_s)) == -5_ms);
    CHECK(wall_clock_moved(slew, at(1_min)) == -20_ms);
}

TEST_CASE("no other event is a wall-clock change") {
    Engine engine(1);
    const NodeId node = engine.add_node("server-1");
    engine.schedule_at(at(1_s), no_node, [&] { engine.pause(node, 2_s, "gc"); });
    engine.run(at(1_min));
    for (const auto& event : engine.trace().events()) CHECK_FALSE(changes_wall_clock(event));
    CHECK_FALSE(engine.trace().events().empty());
}
