// Crash and restart: a crash ends the node's processes and drops what was due for it;
// a restart runs its start-up again.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/rpc.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

Task<void> tick_forever(Host host, std::vector<Instant>& ticks) {
    for (;;) {
        co_await host.sleep(1_s);
        ticks.push_back(host.engine().now());
    }
}

}  // namespace

TEST_CASE("a crash ends the node's processes and its pending timers never fire") {
    Engine engine(1);
    const NodeId node = engine.add_node("server-1");
    std::vector<Instant> ticks;
    Host(engine, node).spawn(tick_forever(Host(engine, node), ticks));
    engine.schedule_at(at(3_s + 500_ms), no_node, [&] { engine.crash(node, "test"); });
    engine.run(at(10_s));
    CHECK(ticks == std::vector<Instant>{at(1_s), at(2_s), at(3_s)});
    CHECK_FALSE(engine.is_up(node));
    const auto crashed = events_of(engine, trace_kind::node_crashed);
    REQUIRE(crashed.size() == 1);
    CHECK(crashed[0]->text("cause") == "test");
}

TEST_CASE("messages to a crashed node are lost, and delivered again after its restart") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(10_ms));
    std::vector<Instant> handled;
    for (Duration t : {1_s, 2_s, 3_s})
        engine.schedule_at(at(t), client,
                           [&] { network.send(client, store, "PING", [&] { handled.push_back(engine.now()); }); });
    engine.schedule_at(at(1_s + 5_ms), no_node, [&] { engine.crash(store, "test"); });  // while the first is in flight
    engine.schedule_at(at(2_s + 500_ms), no_node, [&] { engine.restart(store); });
    engine.run(at(10_s));
    CHECK(handled == std::vector<Instant>{at(3_s + 10_ms)});
}

TEST_CASE("a restart runs the start-up hooks and reports how long the node was down") {
    Engine engine(1);
    const NodeId node = engine.add_node("redis");
    int wiped = 0;
    int started = 0;
    engine.on_crash(node, [&] { ++wiped; });
    engine.on_restart(node, [&] { ++started; });
    engine.schedule_at(at(1_s), no_node, [&] { engine.crash(node, "test"); });
    engine.schedule_at(at(6_s), no_node, [&] { engine.restart(node); });
    engine.run(at(10_s));
    CHECK(wiped == 1);
    CHECK(started == 1);
    const auto restarted = events_of(engine, trace_kind::node_restarted);
    REQUIRE(restarted.size() == 1);
    CHECK(restarted[0]->duration("down_for") == 5_s);
}

TEST_CASE("a reply to a request sent before the client crashed is dropped, and the client runs anew") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_s));
    int replies = 0;
    auto ask = [](Network& network, Host host, NodeId store, int& replies) -> Task<void> {
        auto request = call(network, host, store, "GET", [] { return Answer<int>{1, "1"}; });
        if (co_await request) ++replies;
    };
    const Host host(engine, client);
    host.spawn(ask(network, host, store, replies));
    engine.schedule_at(at(1_s + 500_ms), no_node, [&] { engine.crash(client, "test"); });
    engine.schedule_at(at(1_s + 600_ms), no_node, [&] { engine.restart(client); });
    engine.on_restart(client, [&] { host.spawn(ask(network, host, store, replies)); });
    engine.run(at(10_s));
    CHECK(replies == 1);  // only the second incarnation's request got its answer
    CHECK(events_of(engine, trace_kind::message_delivered).size() == 3);  // GET, GET, and one reply
}

TEST_CASE("a crash during a pause ends the pause and drops what it deferred") {
    Engine engine(1);
    const NodeId node = engine.add_node("server-1");
    std::vector<Instant> ticks;
    Host(engine, node).spawn(tick_forever(Host(engine, node), ticks));
    engine.schedule_at(at(500_ms), no_node, [&] { engine.pause(node, 10_s, "gc"); });
    engine.schedule_at(at(5_s), no_node, [&] { engine.crash(node, "test"); });
    engine.run(at(20_s));
    CHECK(ticks.empty());
    CHECK(events_of(engine, trace_kind::node_resumed).empty());
}
