// NTP-like slewing: a small offset is corrected gradually, never in a visible step.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::time_literals;

TEST_CASE("a slew corrects the wall clock at 500 ppm and leaves the monotonic clock alone") {
    Engine engine(1);
    const NodeId node = engine.add_node("lock-store");
    engine.schedule_at(at(10_s), no_node, [&] { engine.slew_wall_clock(node, 100_ms); });
    std::vector<Duration> offsets;
    for (Duration t : {10_s, 110_s, 210_s, 300_s})
        engine.schedule_at(at(t) + 1_ms, no_node, [&] { offsets.push_back(engine.wall_now(node) - engine.now()); });
    engine.run(at(10_min));
    // 100 ms at 0.5 ms per second takes 200 s; halfway it is halfway.
    CHECK(offsets == std::vector<Duration>{0_ms, 50_ms, 100_ms, 100_ms});
    CHECK(events_of(engine, trace_kind::clock_slewing).size() == 1);
    CHECK(events_of(engine, trace_kind::clock_stepped).empty());
    CHECK(engine.monotonic_now(node) == engine.now());  // a perfect oscillator: monotonic reads true time
}

TEST_CASE("a backward slew never makes the wall clock run backwards") {
    Engine engine(1);
    const NodeId node = engine.add_node("lock-store");
    engine.schedule_at(at(1_s), no_node, [&] { engine.slew_wall_clock(node, -20_ms); });
    Instant previous = engine.wall_now(node);
    bool monotone = true;
    for (int i = 1; i < 600; ++i)
        engine.schedule_at(at(10_ms * i), no_node, [&] {
            const Instant reading = engine.wall_now(node);
            monotone = monotone && reading >= previous;
            previous = reading;
        });
    engine.run(at(1_min));
    CHECK(monotone);
    CHECK(engine.wall_now(node) - engine.now() == -20_ms);
}
