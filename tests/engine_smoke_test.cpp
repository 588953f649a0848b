#include <catch2/catch.hpp>

#include "sim/host.hpp"
#include "sim/rpc.hpp"

using namespace locksim;
using namespace locksim::time_literals;

TEST_CASE("smoke: a process sleeps and calls") {
    Engine engine(1);
    Network network(engine);
    NodeId a = engine.add_node("a");
    NodeId b = engine.add_node("b");
    network.connect(a, b, DelayModel::fixed(1_ms));
    Host host(engine, a);
    int got = 0;
    host.spawn([](Host host, Network& network, NodeId b, int& got) -> Task<void> {
        co_await host.sleep(2_s);
        auto reply = co_await call(network, host, b, "ping", [] { return Answer<int>{42, "pong"}; });
        got = *reply;
    }(host, network, b, got));
    engine.run(Instant{} + 1_min);
    CHECK(got == 42);
    CHECK(engine.now() == Instant{} + 2_s + 2_ms);
}
