// Node clocks as processes meet them: sleeps on the monotonic clock with drift, the
// wall clock's offset and steps, and alarms set on the wall clock.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <vector>

#include "sim/duration_text.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"

using namespace locksim;
using namespace locksim::time_literals;
// --- clocks -----------------------------------------------------------------------

TEST_CASE("a sleep lasts its length on a perfect clock") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    engine.spawn(server, sleeper(Host(engine, server), 10_s, woke));
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(10_s)});
}

TEST_CASE("a sleep on a fast monotonic clock takes less true time") {
    // At +100000 ppm the oscillator gains 10%: 10s on the node's clock is 10/1.1 s of
    // true time, 9.090909091s once rounded up to the first nanosecond that reads 10s.
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{.drift_ppm = 100'000});
    std::vector<Instant> woke;
    engine.spawn(server, sleeper(Host(engine, server), 10_s, woke));
    engine.run(at(1_min));
    REQUIRE(woke.size() == 1);
    CHECK(woke[0] == Instant{9'090'909'091});
    CHECK(engine.clock(server).monotonic(woke[0]) == at(10_s));
    CHECK(engine.clock(server).monotonic(woke[0] - 1_ns) < at(10_s));
}

TEST_CASE("a sleep on a slow monotonic clock takes more true time") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{.drift_ppm = -100'000});
    std::vector<Instant> woke;
    engine.spawn(server, sleeper(Host(engine, server), 10_s, woke));
    engine.run(at(1_min));
    REQUIRE(woke.size() == 1);
    // Readings round down: 11.111111111s of true time reads 9.9999999999s, so the clock
    // first reads 10s a nanosecond later.
    CHECK(woke[0] == Instant{11'111'111'112});
    CHECK(engine.clock(server).monotonic(woke[0]) == at(10_s));
    CHECK(engine.clock(server).monotonic(woke[0] - 1_ns) < at(10_s));
}

TEST_CASE("a clock that almost stops never reaches a far reading, and says so instead of looping") {
    const NodeClock clock(ClockSettings{.drift_ppm = -999'999});
    CHECK(clock.when_monotonic_reads(at(3_s)) == Instant{3'000'000'000'000'000});
    CHECK(clock.when_monotonic_reads(at(hours(24 * 200))) == never);
}

TEST_CASE("a sleep follows the monotonic clock across a wall-clock step") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    engine.spawn(server, sleeper(Host(engine, server), 10_s, woke));
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.step_wall_clock(server, 60_min); });
    engine.schedule_at(at(3_s), no_node, [&engine, server] { engine.step_wall_clock(server, -(60_min * 2)); });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(10_s)});
}

TEST_CASE("a node's wall clock adds its offset and drift to true time") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{.offset = 250_ms, .drift_ppm = 1000});
    std::vector<Instant> wall;
    std::vector<Instant> monotonic;
    engine.schedule_at(at(10_s), server, [&] {
        wall.push_back(engine.wall_now(server));
        monotonic.push_back(engine.monotonic_now(server));
    });
    engine.run(at(1_min));
    CHECK(wall == std::vector<Instant>{at(10_s + 10_ms + 250_ms)});
    CHECK(monotonic == std::vector<Instant>{at(10_s + 10_ms)});
}

TEST_CASE("step_wall_clock moves the wall clock but not the monotonic clock") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> readings;
    engine.schedule_at(at(5_s), no_node, [&engine, server, &readings] {
        readings.push_back(engine.wall_now(server));
        readings.push_back(engine.monotonic_now(server));
        engine.step_wall_clock(server, 30_s);
        readings.push_back(engine.wall_now(server));
        readings.push_back(engine.monotonic_now(server));
        engine.step_wall_clock(server, -45_s);
        readings.push_back(engine.wall_now(server));
        readings.push_back(engine.monotonic_now(server));
    });
    engine.run(at(1_min));
    CHECK(readings == std::vector<Instant>{at(5_s), at(5_s), at(35_s), at(5_s), at(-10_s), at(5_s)});
}

TEST_CASE("a wall-clock step is traced as clock.stepped with the readings before and after") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{.offset = 1_s});
    engine.schedule_at(at(5_s), no_node, [&engine, server] { engine.step_wall_clock(server, 30_s); });
    engine.run(at(1_min));
    const auto stepped = events_of(engine, trace_kind::clock_stepped);
    REQUIRE(stepped.size() == 1);
    CHECK(stepped[0]->at == at(5_s));
    CHECK(stepped[0]->node == server);
    REQUIRE(stepped[0]->has("old_wall"));
    REQUIRE(stepped[0]->has("new_wall"));
    CHECK(stepped[0]->instant("old_wall") == at(6_s));
    CHECK(stepped[0]->instant("new_wall") == at(36_s));
}

TEST_CASE("a wall-clock alarm fires when the wall clock reads its deadline") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{.offset = 4_s});
    std::vector<Instant> fired;
    engine.schedule_at_wall(server, at(10_s), [&engine, &fired] { fired.push_back(engine.now()); });
    engine.run(at(1_min));
    CHECK(fired == std::vector<Instant>{at(6_s)});
}

TEST_CASE("a wall-clock alarm fires earlier in true time after a forward step") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> fired;
    engine.schedule_at_wall(server, at(10_s), [&engine, &fired] { fired.push_back(engine.now()); });
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.step_wall_clock(server, 3_s); });
    engine.run(at(1_min));
    CHECK(fired == std::vector<Instant>{at(7_s)});
}

TEST_CASE("a wall-clock alarm fires later in true time after a backward step") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> fired;
    engine.schedule_at_wall(server, at(10_s), [&engine, &fired] { fired.push_back(engine.now()); });
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.step_wall_clock(server, -3_s); });
    engine.run(at(1_min));
    CHECK(fired == std::vector<Instant>{at(13_s)});
}

TEST_CASE("a wall-clock alarm fires at once when a forward step passes its deadline") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> fired;
    engine.schedule_at_wall(server, at(10_s), [&engine, &fired] { fired.push_back(engine.now()); });
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.step_wall_clock(server, 20_s); });
    engine.run(at(1_min));
    CHECK(fired == std::vector<Instant>{at(2_s)});
}

TEST_CASE("a wall-clock alarm fires once however often the clock is stepped") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> fired;
    engine.schedule_at_wall(server, at(10_s), [&engine, &fired] { fired.push_back(engine.now()); });
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.step_wall_clock(server, 2_s); });
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.step_wall_clock(server, -5_s); });
    engine.schedule_at(at(3_s), no_node, [&engine, server] { engine.step_wall_clock(server, 1_s); });
    engine.run(at(1_min));
    // Net step -2s: the wall clock reads 10s at true 12s.
    CHECK(fired == std::vector<Instant>{at(12_s)});
}

TEST_CASE("sleep_until_wall wakes when the node's wall clock reads the time") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{.offset = 4_s});
    std::vector<Instant> woke;
    engine.spawn(server, [](Host host, std::vector<Instant>& woke) -> Task<void> {
        co_await host.sleep_until_wall(midnight + 10_s);
        woke.push_back(host.engine().now());
        woke.push_back(host.wall_now());
    }(Host(engine, server), woke));
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(6_s), at(10_s)});
}

TEST_CASE("sleep_until_wall follows a step of the node's wall clock") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    engine.spawn(server, [](Host host, std::vector<Instant>& woke) -> Task<void> {
        co_await host.sleep_until_wall(midnight + 10_s);
        woke.push_back(host.engine().now());
    }(Host(engine, server), woke));
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.step_wall_clock(server, -3_s); });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(13_s)});
}

TEST_CASE("sleep_until_wall returns at once when the wall clock already reads later") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{.offset = 20_s});
    std::vector<Instant> woke;
    engine.schedule_at(at(1_s), no_node, [&engine, server, &woke] {
        engine.spawn(server, [](Host host, std::vector<Instant>& woke) -> Task<void> {
            co_await host.sleep_until_wall(midnight + 10_s);
            woke.push_back(host.engine().now());
        }(Host(engine, server), woke));
    });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(1_s)});
}
