// sim/engine.hpp and sim/host.hpp: true time, pauses, processes, the trace (clocks: clock_test.cpp).
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <coroutine>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "sim/duration_text.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

struct SetOnDestroy {
    bool* flag;
    ~SetOnDestroy() { *flag = true; }
};

}  // namespace

// --- pauses -----------------------------------------------------------------------

TEST_CASE("a timer due during a pause fires when the pause ends") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    engine.spawn(server, sleeper(Host(engine, server), 2_s, woke));
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(6_s)});
}

TEST_CASE("a timer due after a pause is not moved by it") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    engine.spawn(server, sleeper(Host(engine, server), 10_s, woke));
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(10_s)});
}

TEST_CASE("events deferred by a pause run in the order they fell due, before other events at the resume instant") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<std::string> fired;
    auto note = [&engine, &fired](std::string name) {
        return [&engine, &fired, name] { fired.push_back(fmt::format("{} ran at {}", name, engine.now())); };
    };
    // Scheduled before the pause, out of time order on purpose.
    engine.schedule_at(at(6_s), server, note("due at 6s"));
    engine.schedule_at(at(3_s), server, note("due at 3s"));
    engine.schedule_at(at(2_s), server, note("due at 2s"));
    engine.schedule_at(at(1_s), no_node, [&engine, server, note] {
        engine.pause(server, 5_s, "gc");
        // Scheduled after the pause began, for the instant it ends.
        engine.schedule_at(at(6_s), server, note("scheduled during the pause for 6s"));
        engine.schedule_at(at(6_s), no_node, note("world event scheduled during the pause for 6s"));
    });
    engine.run(at(1_min));
    CHECK(fired == std::vector<std::string>{
                       "due at 2s ran at 6.000s",
                       "due at 3s ran at 6.000s",
                       "due at 6s ran at 6.000s",
                       "scheduled during the pause for 6s ran at 6.000s",
                       "world event scheduled during the pause for 6s ran at 6.000s",
                   });
}

TEST_CASE("a pause does not hold up other nodes") {
    Engine engine(1);
    const NodeId paused = engine.add_node("server-1");
    const NodeId running = engine.add_node("server-2");
    std::vector<Instant> woke;
    engine.spawn(paused, sleeper(Host(engine, paused), 2_s, woke));
    engine.spawn(running, sleeper(Host(engine, running), 3_s, woke));
    engine.schedule_at(at(1_s), no_node, [&engine, paused] { engine.pause(paused, 5_s, "gc"); });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(3_s), at(6_s)});
}

TEST_CASE("a pause extended by a second pause holds until the later end") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    std::vector<bool> paused_at_7s;
    engine.spawn(server, sleeper(Host(engine, server), 3_s, woke));
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.pause(server, 7_s, "swap"); });
    engine.schedule_at(at(7_s), no_node,
                       [&engine, server, &paused_at_7s] { paused_at_7s.push_back(engine.is_paused(server)); });
    engine.run(at(1_min));
    CHECK(paused_at_7s == std::vector<bool>{true});
    CHECK(woke == std::vector<Instant>{at(9_s)});
    const auto resumed = events_of(engine, trace_kind::node_resumed);
    REQUIRE(resumed.size() == 1);
    CHECK(resumed[0]->at == at(9_s));
    CHECK_FALSE(engine.is_paused(server));
}

TEST_CASE("a shorter pause during a longer one does not end it early") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    engine.spawn(server, sleeper(Host(engine, server), 3_s, woke));
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.pause(server, 1_s, "blip"); });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(6_s)});
    const auto resumed = events_of(engine, trace_kind::node_resumed);
    REQUIRE(resumed.size() == 1);
    CHECK(resumed[0]->at == at(6_s));
}

TEST_CASE("a pause and its end are traced as node.paused and node.resumed") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.run(at(1_min));

    const auto paused = events_of(engine, trace_kind::node_paused);
    REQUIRE(paused.size() == 1);
    CHECK(paused[0]->at == at(1_s));
    CHECK(paused[0]->node == server);
    REQUIRE(paused[0]->has("for"));
    CHECK(paused[0]->duration("for") == 5_s);
    REQUIRE(paused[0]->has("cause"));
    CHECK(paused[0]->text("cause") == "gc");

    const auto resumed = events_of(engine, trace_kind::node_resumed);
    REQUIRE(resumed.size() == 1);
    CHECK(resumed[0]->at == at(6_s));
    CHECK(resumed[0]->node == server);
}

TEST_CASE("node.resumed says how long the node was paused") {
    // sim/trace.hpp documents node.resumed with the field paused_for.
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.run(at(1_min));
    const auto resumed = events_of(engine, trace_kind::node_resumed);
    REQUIRE(resumed.size() == 1);
    REQUIRE(resumed[0]->has("paused_for"));
    CHECK(resumed[0]->duration("paused_for") == 5_s);
}

TEST_CASE("a process spawned on a paused node starts when the pause ends") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.schedule_at(at(2_s), no_node, [&engine, server, &woke] {
        engine.spawn(server, sleeper(Host(engine, server), Duration{}, woke));
    });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(6_s)});
}

// --- processes --------------------------------------------------------------------

TEST_CASE("spawn runs a process on its node from the current time") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> woke;
    engine.schedule_at(at(3_s), no_node,
                       [&engine, server, &woke] { engine.spawn(server, sleeper(Host(engine, server), 2_s, woke)); });
    engine.run(at(1_min));
    CHECK(woke == std::vector<Instant>{at(5_s)});
}

TEST_CASE("processes interleave in true-time order") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<std::string> steps;
    auto worker = [](Host host, std::string name, Duration period, std::vector<std::string>& steps) -> Task<void> {
        for (int i = 0; i < 3; ++i) {
            co_await host.sleep(period);
            steps.push_back(fmt::format("{}@{}", name, host.engine().now()));
        }
    };
    engine.spawn(server, worker(Host(engine, server), "a", 2_s, steps));
    engine.spawn(server, worker(Host(engine, server), "b", 3_s, steps));
    engine.run(at(1_min));
    // At 6s both are due; a's sleep was scheduled at 4s, b's at 3s, so b's event is older.
    CHECK(steps == std::vector<std::string>{"a@2.000s", "b@3.000s", "a@4.000s", "b@6.000s", "a@6.000s", "b@9.000s"});
}

TEST_CASE("a process awaits a child task and gets its value") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<int> results;
    engine.spawn(server, [](Host host, std::vector<int>& results) -> Task<void> {
        auto child = [](Host host) -> Task<int> {
            co_await host.sleep(1_s);
            co_return 42;
        };
        Task<int> task = child(host);
        const int value = co_await task;
        results.push_back(value);
    }(Host(engine, server), results));
    engine.run(at(1_min));
    CHECK(results == std::vector<int>{42});
    CHECK(engine.now() == at(1_s));
}

TEST_CASE("an exception in an awaited task is rethrown at the co_await") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<std::string> caught;
    engine.spawn(server, [](Host host, std::vector<std::string>& caught) -> Task<void> {
        auto child = [](Host host) -> Task<int> {
            co_await host.sleep(1_s);
            throw std::runtime_error("lease store unreachable");
        };
        Task<int> task = child(host);
        try {
            co_await task;
        } catch (const std::runtime_error& error) {
            caught.push_back(error.what());
        }
    }(Host(engine, server), caught));
    engine.run(at(1_min));
    CHECK(caught == std::vector<std::string>{"lease store unreachable"});
}

TEST_CASE("an exception thrown in a process propagates out of Engine::run") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    bool later_event_ran = false;
    engine.spawn(server, [](Host host) -> Task<void> {
        co_await host.sleep(1_s);
        throw std::runtime_error("invariant broken");
    }(Host(engine, server)));
    engine.schedule_at(at(5_s), no_node, [&later_event_ran] { later_event_ran = true; });
    REQUIRE_THROWS_WITH(engine.run(at(1_min)), "invariant broken");
    CHECK(engine.now() == at(1_s));
    CHECK_FALSE(later_event_ran);
}

TEST_CASE("a process still waiting when the engine is destroyed is destroyed with it") {
    bool destroyed = false;
    {
        Engine engine(1);
        const NodeId server = engine.add_node("server-1");
        engine.spawn(server, [](Host host, bool* destroyed) -> Task<void> {
            SetOnDestroy guard{destroyed};
            co_await host.sleep(60_min);
        }(Host(engine, server), &destroyed));
        engine.run(at(1_s));
        CHECK_FALSE(destroyed);
    }
    CHECK(destroyed);
}

TEST_CASE("a finished process is destroyed when it ends") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    bool destroyed = false;
    engine.spawn(server, [](Host host, bool* destroyed) -> Task<void> {
        SetOnDestroy guard{destroyed};
        co_await host.sleep(1_s);
    }(Host(engine, server), &destroyed));
    engine.run(at(1_min));
    CHECK(destroyed);
}

// --- parking ----------------------------------------------------------------------

TEST_CASE("a parked waiter is claimed once and a stale ticket claims nothing") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    const std::coroutine_handle<> waiter = std::noop_coroutine();
    const WaitTicket first = engine.park(server, waiter);
    CHECK(engine.claim(first) == waiter);
    CHECK_FALSE(engine.claim(first));
    // The slot is reused; the old ticket must not claim the new waiter.
    const WaitTicket second = engine.park(server, waiter);
    CHECK(second.slot == first.slot);
    CHECK_FALSE(engine.claim(first));
    CHECK(engine.claim(second) == waiter);
}

// --- running and the trace --------------------------------------------------------

TEST_CASE("run stops at the horizon and says so") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> fired;
    for (Duration when : {1_s, 5_s, 10_s})
        engine.schedule_at(at(when), server, [&engine, &fired] { fired.push_back(engine.now()); });

    const RunSummary first = engine.run(at(5_s));
    CHECK(first.horizon_reached);
    CHECK(first.ended_at == at(5_s));
    CHECK(first.events_handled == 2);
    CHECK(fired == std::vector<Instant>{at(1_s), at(5_s)});

    const RunSummary second = engine.run(at(1_min));
    CHECK_FALSE(second.horizon_reached);
    CHECK(second.ended_at == at(10_s));
    CHECK(second.events_handled == 1);
    CHECK(fired == std::vector<Instant>{at(1_s), at(5_s), at(10_s)});
}

TEST_CASE("run with nothing to do ends at once without reaching the horizon") {
    Engine engine(1);
    const RunSummary summary = engine.run(at(1_min));
    CHECK_FALSE(summary.horizon_reached);
    CHECK(summary.events_handled == 0);
    CHECK(summary.ended_at == midnight);
}

namespace {
// Kinds of this test's own, declared as every kind is.
constexpr FieldSpec note_fields[] = {
    {"answer", FieldType::integer}, {"holder", FieldType::node}, {"remark", FieldType::text, true}};
constexpr KindSpec test_note{"test.note", "a note a test records", note_fields};
constexpr KindSpec test_world{"test.world", "an event of the world", {}};
}  // namespace

TEST_CASE("the trace records true time and the node's wall and monotonic readings") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{.offset = 60_min, .drift_ppm = 1000});
    engine.schedule_at(at(10_s), server, [&engine, server] {
        Host(engine, server).record(test_note, {{"answer", std::int64_t{42}}, {"holder", server}});
    });
    engine.schedule_at(at(11_s), no_node, [&engine] { engine.record(no_node, test_world, {}); });
    engine.run(at(1_min));

    const auto& events = engine.trace().events();
    REQUIRE(events.size() == 2);
    const TraceEvent& note = events[0];
    CHECK(note.sequence == 0);
    CHECK(note.kind == "test.note");
    CHECK(note.node == server);
    CHECK(note.at == at(10_s));
    CHECK(note.wall == at(60_min + 10_s + 10_ms));
    CHECK(note.monotonic == at(10_s + 10_ms));
    REQUIRE(note.has("answer"));
    CHECK(note.integer("answer") == 42);
    REQUIRE(note.has("holder"));
    CHECK(note.node_ref("holder") == server);
    CHECK_FALSE(note.has("missing"));

    const TraceEvent& world = events[1];
    CHECK(world.sequence == 1);
    CHECK(world.node == no_node);
    CHECK(world.at == at(11_s));
    CHECK(engine.trace().node_name(world.node) == "world");
}

TEST_CASE("the trace knows every node by name") {
    Engine engine(1);
    const NodeId first = engine.add_node("server-1");
    const NodeId second = engine.add_node("redis");
    CHECK(engine.node_count() == 2);
    CHECK(engine.node_name(second) == "redis");
    CHECK(engine.trace().node_name(first) == "server-1");
    CHECK(engine.trace().find_node("redis") == second);
    CHECK_FALSE(engine.trace().find_node("nobody").has_value());
}

TEST_CASE("a host's random stream is the engine's stream named after the host") {
    Engine engine(7);
    const NodeId server = engine.add_node("server-1");
    RandomStream from_host = Host(engine, server).random_stream("lock-values");
    RandomStream expected(7, "server-1/lock-values");
    for (int i = 0; i < 10; ++i) REQUIRE(from_host.next_u64() == expected.next_u64());
    RandomStream from_engine = engine.random_stream("server-1/lock-values");
    RandomStream again(7, "server-1/lock-values");
    CHECK(from_engine.next_u64() == again.next_u64());
}

TEST_CASE("an event that does not match its kind's declaration is refused where it is recorded") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1", ClockSettings{});
    const auto refusal = [&](std::initializer_list<Field> fields) -> std::string {
        try {
            engine.record(server, test_note, fields);
        } catch (const std::logic_error& error) {
            return error.what();
        }
        return "recorded";
    };
    CHECK(refusal({{"answer", std::int64_t{42}}, {"holder", server}}) == "recorded");
    CHECK(refusal({{"answer", std::int64_t{42}}, {"holder", server}, {"remark", "optional"}}) == "recorded");
    CHECK_THAT(refusal({{"holder", server}}), Catch::Contains("test.note events need \"answer\" (integer)"));
    CHECK_THAT(refusal({{"answer", "42"}, {"holder", server}}),
               Catch::Contains("test.note.answer must be integer, not text"));
    CHECK_THAT(refusal({{"answer", std::int64_t{42}}, {"holder", "server-1"}}),
               Catch::Contains("test.note.holder must be node, not text"));
    CHECK_THAT(refusal({{"answer", std::int64_t{42}}, {"holder", server}, {"extra", true}}),
               Catch::Contains("test.note events have no field \"extra\""));
    CHECK_THAT(refusal({{"answer", std::int64_t{1}}, {"answer", std::int64_t{2}}, {"holder", server}}),
               Catch::Contains("given twice"));
    CHECK(engine.trace().events().size() == 2);
}

// Memory is bounded by what the kept trace holds, not by an event count: a run that keeps
// its trace stops with the reason once the trace passes its budget; one that keeps none
// runs as long as its events allow.
TEST_CASE("a run whose kept trace passes its byte limit stops with the reason, one that keeps none runs on") {
    const auto world = [](Engine& engine) {
        const NodeId server = engine.add_node("server-1");
        for (int k = 1; k <= 20'000; ++k)
            engine.schedule_at(at(milliseconds(k)), server, [&engine, server, k] {
                Host(engine, server).record(test_note, {{"answer", std::int64_t{k}}, {"holder", server}});
            });
    };
    constexpr std::size_t limit = 256 * 1024;
    Engine keeping(1);
    world(keeping);
    try {
        keeping.run(at(1_min), Engine::default_event_limit, limit);
        FAIL("the run kept more than its limit and went on");
    } catch (const RunawayRun& runaway) {
        const std::string said = runaway.what();
        // Checked every 4,096 events: the first check finds the trace past its limit.
        CHECK(said ==
              "the run's trace held 0.5 MiB (4096 events) by true time 4.096s and was stopped, more than the 0.2 MiB "
              "one run may keep; shorten the horizon or the job, or run it with locksim sweep, which keeps no trace");
        CHECK(keeping.trace().bytes_held() > limit);
        CHECK(keeping.trace().events().size() < 20'000);
    }
    Engine not_keeping(1);
    not_keeping.keep_trace_events(false);
    world(not_keeping);
    CHECK(not_keeping.run(at(1_min), Engine::default_event_limit, limit).events_handled == 20'000);
}
