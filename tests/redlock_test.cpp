// models/stores/redlock_client.hpp: the lock on a majority of five independent Redis nodes,
// validity = TTL - elapsed - drift on the client's monotonic clock, extension on a
// majority, release everywhere, and no token.
#include <catch2/catch.hpp>

#include "tests/lock_client_fixture.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/lock_client.hpp"
#include "models/stores/redlock_client.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::acquire_after;
using locksim::testing::Acquired;
using locksim::testing::lock_key;

namespace {

LockSpec redlock_lock(Duration ttl = 10_s, Duration node_timeout = 50_ms) {
    LockSpec lock;
    lock.store = StoreKind::redlock;
    lock.key = lock_key;
    lock.ttl = ttl;
    lock.retry = RetrySpec{100_ms, 200_ms};
    lock.request_timeout = 1_s;
    lock.redlock = RedlockSpec{5, node_timeout};
    return lock;
}

// Five Redis nodes and two job servers, deployed as a scenario would deploy them. Each
// Redis node has its own one-way delay to both servers. server-1's wall clock is an hour
// ahead, so a validity computed from the wall clock would show.
struct RedlockWorld {
    explicit RedlockWorld(LockSpec lock = redlock_lock(),
                          std::vector<Duration> one_way = std::vector<Duration>(5, 1_ms))
        : engine(1), network(engine) {
        for (int i = 1; i <= 5; ++i) redis.push_back(engine.add_node(fmt::format("redis-{}", i)));
        server_1 = engine.add_node("server-1", ClockSettings{.offset = 60_min});
        server_2 = engine.add_node("server-2");
        for (const NodeId server : {server_1, server_2})
            for (std::size_t i = 0; i < redis.size(); ++i)
                network.connect(server, redis[i], DelayModel::fixed(one_way[i]));
        world.servers = {"server-1", "server-2"};
        for (int i = 1; i <= 5; ++i) world.store_nodes.push_back(fmt::format("redis-{}", i));
        world.lock = lock;
        deployment = deploy_redlock(testing::store_context(engine, network, world));
        client_1 = deployment->client_for(Host(engine, server_1));
        client_2 = deployment->client_for(Host(engine, server_2));
    }

    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    void crash_at(Duration when, std::vector<int> numbers) {
        on_world(when, [this, numbers] {
            for (int n : numbers) engine.crash(redis[n - 1], "test");
        });
    }
    void restart_at(Duration when, std::vector<int> numbers) {
        on_world(when, [this, numbers] {
            for (int n : numbers) engine.restart(redis[n - 1]);
        });
    }
    void run(Duration horizon = 60_s) { engine.run(at(horizon)); }

    // The Redis nodes on which `kind` was traced for `value`, in trace order.
    std::vector<NodeId> nodes_with(std::string_view kind, const std::string& value) const {
        std::vector<NodeId> nodes;
        for (const auto* event : events_of(engine, kind))
            if (event->text("value") == value) nodes.push_back(event->node);
        return nodes;
    }
    // The nodes server-1 sent `label` to.
    std::set<NodeId> sent_to(NodeId from, const std::string& label) const {
        std::set<NodeId> targets;
        for (const auto* event : events_of(engine, trace_kind::message_sent))
            if (event->node == from && event->text("label") == label) targets.insert(event->node_ref("to"));
        return targets;
    }
    std::set<NodeId> all_redis() const { return {redis.begin(), redis.end()}; }

    Engine engine;
    Network network;
    std::vector<NodeId> redis;
    NodeId server_1;
    NodeId server_2;
    WorldSpec world;
    std::unique_ptr<StoreDeployment> deployment;
    std::unique_ptr<LockStoreClient> client_1;
    std::unique_ptr<LockStoreClient> client_2;
};

struct Extended {
    std::optional<ExtendResult> result;
    Instant asked;
};

// Acquires after `start_after`, holds for `hold`, releases.
Task<void> acquire_then_release(Host host, LockStoreClient& client, Duration start_after, Duration hold,
                                Acquired& acquired) {
    auto acquiring = acquire_after(host, client, start_after, acquired);
    co_await acquiring;
    co_await host.sleep(hold);
    auto releasing = client.release(*acquired.lease);
    co_await releasing;
}

// Acquires after `start_after`, extends `extend_after` later.
Task<void> acquire_then_extend(Host host, LockStoreClient& client, Duration start_after, Duration extend_after,
                               Acquired& acquired, Extended& extended) {
    auto acquiring = acquire_after(host, client, start_after, acquired);
    co_await acquiring;
    co_await host.sleep(extend_after);
    extended.asked = host.monotonic_now();
    auto extending = client.extend(*acquired.lease);
    extended.result = co_await extending;
}

}  // namespace

TEST_CASE("a client that gets three of five nodes holds the lock") {
    RedlockWorld world;
    world.crash_at(0_s, {4, 5});
    Acquired acquired;
    Host(world.engine, world.server_1)
        .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 1_s, acquired));
    world.run();
    REQUIRE(acquired.lease);
    // The two dead nodes' kernels refuse at once (their processes are gone): done in one
    // round trip, not at the dead nodes' 50 ms timeouts.
    CHECK(acquired.got_at == at(1_s + 2_ms));
    CHECK(acquired.lease->key == lock_key);
    CHECK(world.nodes_with(trace_kind::lock_granted, acquired.lease->value) ==
          std::vector<NodeId>{world.redis[0], world.redis[1], world.redis[2]});
    CHECK(world.nodes_with(trace_kind::lock_released, acquired.lease->value).empty());
}

TEST_CASE("a client that gets two of five nodes holds nothing and releases on every node") {
    // 1. redis-3, redis-4 and redis-5 are down from 0 to 5s.
    // 2. At 1s server-1 gets redis-1 and redis-2 only: no majority. It sends the
    //    compare-and-delete to all five and retries after a random delay, in vain.
    // 3. The three come back empty at 5s; the next attempt gets all five.
    RedlockWorld world;
    world.crash_at(0_s, {3, 4, 5});
    world.restart_at(5_s, {3, 4, 5});
    Acquired acquired;
    Host(world.engine, world.server_1)
        .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 1_s, acquired));
    world.run();

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE_FALSE(granted.empty());
    const std::string first_value(granted[0]->text("value"));
    CHECK(world.nodes_with(trace_kind::lock_granted, first_value) ==
          std::vector<NodeId>{world.redis[0], world.redis[1]});
    CHECK(world.sent_to(world.server_1, fmt::format("DELEX {} IFEQ {}", lock_key, first_value)) == world.all_redis());
    CHECK(world.nodes_with(trace_kind::lock_released, first_value) ==
          std::vector<NodeId>{world.redis[0], world.redis[1]});
    for (const auto* released : events_of(world.engine, trace_kind::lock_released)) {
        CHECK(released->node_ref("by") == world.server_1);
        CHECK_FALSE(released->flag("plain"));
    }

    REQUIRE(acquired.lease);
    CHECK(acquired.got_at > at(5_s));
    CHECK(acquired.lease->value != first_value);
    // Every failed attempt gave back each node it got: only the held value is left.
    for (const auto* grant : granted) {
        const std::string value(grant->text("value"));
        if (value == acquired.lease->value) continue;
        CHECK(world.nodes_with(trace_kind::lock_released, value) == world.nodes_with(trace_kind::lock_granted, value));
    }
    CHECK(world.nodes_with(trace_kind::lock_granted, acquired.lease->value).size() == 5);
}

TEST_CASE("validity is the TTL less the time acquiring took less a drift of 1% of the TTL plus 2ms") {
    struct Case {
        Duration ttl;
        Duration drift;
    };
    for (const Case c : {Case{10_s, 102_ms}, Case{30_s, 302_ms}, Case{1_s, 12_ms}}) {
        INFO("ttl " << format_duration(c.ttl));
        RedlockWorld world(redlock_lock(c.ttl));
        Acquired acquired;
        Host(world.engine, world.server_1)
            .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 5_s, acquired));
        world.run();
        REQUIRE(acquired.lease);
        // server-1's monotonic clock reads 5s when it asks (its wall clock reads 1h 5s).
        CHECK(acquired.asked == monotonic(5_s));
        CHECK(acquired.got == monotonic(5_s + 2_ms));  // one round trip of 2ms
        CHECK(acquired.lease->valid_until - acquired.got == c.ttl - 2_ms - c.drift);
        CHECK(acquired.lease->valid_until == acquired.asked + c.ttl - c.drift);
    }
}

TEST_CASE("a node that answers after the node timeout counts as a failure") {
    // redis-3..5 are 30ms away each way: they grant the key, but the 60ms round trip is
    // longer than the 50ms node timeout, so only two replies count.
    RedlockWorld world(redlock_lock(10_s, 50_ms), {1_ms, 1_ms, 30_ms, 30_ms, 30_ms});
    Acquired acquired;
    Host(world.engine, world.server_1)
        .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 1_s, acquired));
    world.run(3_s);
    CHECK_FALSE(acquired.lease);

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE_FALSE(granted.empty());
    const std::string first_value(granted[0]->text("value"));
    const std::vector<NodeId> everywhere(world.redis.begin(), world.redis.end());
    CHECK(world.nodes_with(trace_kind::lock_granted, first_value) == everywhere);
    // Given back on all five, the late ones included.
    std::vector<NodeId> released = world.nodes_with(trace_kind::lock_released, first_value);
    std::sort(released.begin(), released.end());
    CHECK(released == everywhere);
}

TEST_CASE("a node that answers within the node timeout counts, and its wait shortens validity") {
    // redis-4 and redis-5 answer after a 48ms round trip, inside the 50ms node timeout.
    RedlockWorld world(redlock_lock(10_s, 50_ms), {1_ms, 1_ms, 1_ms, 24_ms, 24_ms});
    Acquired acquired;
    Host(world.engine, world.server_1)
        .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 1_s, acquired));
    world.run();
    REQUIRE(acquired.lease);
    CHECK(acquired.got - acquired.asked == 48_ms);
    CHECK(acquired.lease->valid_until - acquired.got == 10_s - 48_ms - 102_ms);
    CHECK(world.nodes_with(trace_kind::lock_granted, acquired.lease->value).size() == 5);
}

TEST_CASE("a majority that took longer than the TTL less the drift is given back") {
    // Each node is 4.975s away: every node grants, but the round trip of 9.95s leaves
    // 10s - 9.95s - 102ms < 0 of validity. The keys still live when the release arrives.
    RedlockWorld world(redlock_lock(10_s, 11_s), std::vector<Duration>(5, 4975_ms));
    Acquired acquired;
    Host(world.engine, world.server_1)
        .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 1_s, acquired));
    world.run(16_s);
    CHECK_FALSE(acquired.lease);
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE_FALSE(granted.empty());
    const std::string first_value(granted[0]->text("value"));
    CHECK(world.nodes_with(trace_kind::lock_granted, first_value).size() == 5);
    CHECK(world.nodes_with(trace_kind::lock_released, first_value).size() == 5);
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());
}

TEST_CASE("a second client gets the lock only after the first one's keys expire") {
    RedlockWorld world;
    Acquired first;
    Acquired second;
    Host(world.engine, world.server_1)
        .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 1_s, first));
    Host(world.engine, world.server_2)
        .spawn(acquire_after(Host(world.engine, world.server_2), *world.client_2, 2_s, second));
    world.run();
    REQUIRE(first.lease);
    REQUIRE(second.lease);
    CHECK(first.got_at == at(1_s + 2_ms));
    // The keys were set at 1.001s with a 10s TTL.
    CHECK(second.got_at > at(11_s + 1_ms));
    CHECK(second.got_at < at(11_s + 1_ms + 250_ms));
    CHECK(world.nodes_with(trace_kind::lock_expired, first.lease->value).size() == 5);
}

TEST_CASE("extension on a majority succeeds and counts validity from when it was sent") {
    RedlockWorld world;
    world.crash_at(4_s, {4, 5});
    Acquired acquired;
    Extended extended;
    Host(world.engine, world.server_1)
        .spawn(acquire_then_extend(Host(world.engine, world.server_1), *world.client_1, 1_s, 4_s - 2_ms, acquired,
                                   extended));
    world.run();
    REQUIRE(acquired.lease);
    REQUIRE(extended.result);
    CHECK(extended.asked == monotonic(5_s));
    CHECK(extended.result->outcome == ExtendResult::Outcome::extended);
    CHECK(extended.result->valid_until == monotonic(5_s) + 10_s - 102_ms);

    const auto renewed = events_of(world.engine, trace_kind::lock_renewed);
    REQUIRE(renewed.size() == 3);
    for (std::size_t i = 0; i < renewed.size(); ++i) {
        CHECK(renewed[i]->node == world.redis[i]);
        CHECK(renewed[i]->text("value") == acquired.lease->value);
        CHECK(renewed[i]->instant("expires_at") == at(5_s + 1_ms + 10_s));
    }
}

TEST_CASE("extension on fewer than a majority is refused") {
    RedlockWorld world;
    world.crash_at(4_s, {3, 4, 5});
    Acquired acquired;
    Extended extended;
    Host(world.engine, world.server_1)
        .spawn(acquire_then_extend(Host(world.engine, world.server_1), *world.client_1, 1_s, 4_s - 2_ms, acquired,
                                   extended));
    world.run();
    REQUIRE(acquired.lease);
    REQUIRE(extended.result);
    CHECK(extended.result->outcome == ExtendResult::Outcome::refused);
    CHECK(events_of(world.engine, trace_kind::lock_renewed).size() == 2);
}

TEST_CASE("release deletes the key on every node with compare-and-delete") {
    RedlockWorld world;
    Acquired first;
    Acquired second;
    Host(world.engine, world.server_1)
        .spawn(acquire_then_release(Host(world.engine, world.server_1), *world.client_1, 1_s, 1_s, first));
    Host(world.engine, world.server_2)
        .spawn(acquire_after(Host(world.engine, world.server_2), *world.client_2, 3_s, second));
    world.run();
    REQUIRE(first.lease);
    CHECK(world.sent_to(world.server_1, fmt::format("DELEX {} IFEQ {}", lock_key, first.lease->value)) ==
          world.all_redis());
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 5);
    for (std::size_t i = 0; i < released.size(); ++i) {
        CHECK(released[i]->node == world.redis[i]);
        CHECK(released[i]->text("value") == first.lease->value);
        CHECK(released[i]->node_ref("holder") == world.server_1);
        CHECK(released[i]->node_ref("by") == world.server_1);
        CHECK_FALSE(released[i]->flag("plain"));
    }
    // Nothing is left behind: the next client gets the lock at its first attempt.
    REQUIRE(second.lease);
    CHECK(second.got_at == at(3_s + 2_ms));
}

TEST_CASE("Redlock hands out no token and a new random value for every acquire") {
    RedlockWorld world;
    Acquired first;
    Acquired second;
    Host(world.engine, world.server_1)
        .spawn(acquire_then_release(Host(world.engine, world.server_1), *world.client_1, 1_s, 1_s, first));
    Host(world.engine, world.server_1)
        .spawn(acquire_then_release(Host(world.engine, world.server_1), *world.client_1, 3_s, 1_s, second));
    world.run();
    REQUIRE(first.lease);
    REQUIRE(second.lease);
    CHECK_FALSE(first.lease->token);
    CHECK_FALSE(second.lease->token);
    CHECK(first.lease->value != second.lease->value);
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 10);
    for (const auto* grant : granted) CHECK_FALSE(grant->has("token"));
}
