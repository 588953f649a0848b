// models/stores/replicated_redis.hpp: a Redis primary whose replicas apply its writes after
// the replication lag and never expire keys themselves, Sentinel-style failover to the
// replica with the largest offset, and WAIT.
#include <catch2/catch.hpp>

#include "tests/lock_client_fixture.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/lock_client.hpp"
#include "models/stores/replicated_redis.hpp"
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

ReplicationSpec replication(Duration lag, Duration down_after = 3_s, int wait_replicas = 0,
                            Duration wait_timeout = {}) {
    ReplicationSpec spec;
    spec.lag = lag;
    spec.down_after = down_after;
    spec.wait_replicas = wait_replicas;
    spec.wait_timeout = wait_timeout;
    return spec;
}

using Links = std::map<std::pair<std::string, std::string>, Duration>;

// redis-1 (the first primary), its replicas redis-2…, a sentinel and two job servers,
// deployed as a scenario would deploy them. Every pair of nodes is linked with a 1ms
// delay unless `links` says otherwise.
struct ReplicatedWorld {
    explicit ReplicatedWorld(ReplicationSpec replication_spec, int replicas = 1, Duration ttl = 30_s, Links links = {},
                             std::map<std::string, ClockSettings> clocks = {})
        : engine(1), network(engine) {
        for (int i = 1; i <= replicas + 1; ++i) world.store_nodes.push_back(fmt::format("redis-{}", i));
        world.store_nodes.push_back("sentinel");
        world.servers = {"server-1", "server-2"};
        std::vector<std::string> names = world.store_nodes;
        names.insert(names.end(), world.servers.begin(), world.servers.end());
        for (const auto& name : names) engine.add_node(name, clocks.contains(name) ? clocks.at(name) : ClockSettings{});
        for (std::size_t a = 0; a < names.size(); ++a)
            for (std::size_t b = a + 1; b < names.size(); ++b) {
                Duration delay = 1_ms;
                if (auto found = links.find({names[a], names[b]}); found != links.end()) delay = found->second;
                network.connect(node(names[a]), node(names[b]), DelayModel::fixed(delay));
            }
        world.lock.store = StoreKind::redis_replicated;
        world.lock.key = lock_key;
        world.lock.ttl = ttl;
        world.lock.retry = RetrySpec{100_ms, 200_ms};
        world.lock.request_timeout = 1_s;
        world.lock.replication = replication_spec;
        world.lock.replication.replicas = replicas;
        deployment = deploy_replicated_redis(testing::store_context(engine, network, world));
        client_1 = deployment->client_for(Host(engine, node("server-1")));
        client_2 = deployment->client_for(Host(engine, node("server-2")));
    }

    NodeId node(const std::string& name) const { return *engine.trace().find_node(name); }
    Host host(const std::string& name) { return Host(engine, node(name)); }
    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    void crash_at(Duration when, const std::string& name) {
        on_world(when, [this, name] { engine.crash(node(name), "test"); });
    }
    void restart_at(Duration when, const std::string& name) {
        on_world(when, [this, name] { engine.restart(node(name)); });
    }
    void run(Duration horizon = 60_s) { engine.run(at(horizon)); }

    // Messages whose label is `label`, as sent (or delivered), in trace order.
    std::vector<const TraceEvent*> messages(std::string_view kind, const std::string& label) const {
        std::vector<const TraceEvent*> found;
        for (const auto* event : events_of(engine, kind))
            if (event->text("label") == label) found.push_back(event);
        return found;
    }
    std::vector<const TraceEvent*> on(std::string_view kind, const std::string& name) const {
        std::vector<const TraceEvent*> found;
        for (const auto* event : events_of(engine, kind))
            if (event->node == node(name)) found.push_back(event);
        return found;
    }
    // The reply to the request sent with `request`.
    const TraceEvent* reply_to(const TraceEvent& request) const {
        for (const auto* event : events_of(engine, trace_kind::message_sent))
            if (event->has("reply_to") && event->integer("reply_to") == request.integer("id")) return event;
        return nullptr;
    }

    Engine engine;
    Network network;
    WorldSpec world;
    std::unique_ptr<StoreDeployment> deployment;
    std::unique_ptr<LockStoreClient> client_1;
    std::unique_ptr<LockStoreClient> client_2;
};

}  // namespace

TEST_CASE("the primary acknowledges a SET at once and the replica gets it only after the replication lag") {
    ReplicatedWorld world(replication(500_ms));
    Acquired acquired;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, acquired));
    world.run(10_s);
    REQUIRE(acquired.lease);
    CHECK(acquired.got_at == at(1_s + 2_ms));

    const auto granted = world.on(trace_kind::lock_granted, "redis-1");
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at == at(1_s + 1_ms));
    const std::string stream = fmt::format("replicate SET {} {}", lock_key, acquired.lease->value);
    const auto sent = world.messages(trace_kind::message_sent, stream);
    REQUIRE(sent.size() == 1);
    CHECK(sent[0]->node == world.node("redis-1"));
    CHECK(sent[0]->at == at(1_s + 1_ms + 500_ms));
    const auto delivered = world.messages(trace_kind::message_delivered, stream);
    REQUIRE(delivered.size() == 1);
    CHECK(delivered[0]->node == world.node("redis-2"));
    CHECK(delivered[0]->at == at(1_s + 1_ms + 500_ms + 1_ms));
    const auto acked = world.messages(trace_kind::message_delivered, "REPLCONF ACK 1");
    REQUIRE(acked.size() == 1);
    CHECK(acked[0]->node == world.node("redis-1"));
    CHECK(acked[0]->at == at(1_s + 1_ms + 500_ms + 2_ms));
}

TEST_CASE("a replica never expires a key itself, the primary's DEL removes it") {
    // redis-2's wall clock is an hour ahead: by its own clock the key is long expired, yet
    // it keeps the key until the primary's DEL arrives, a lag after the primary expired it.
    ReplicatedWorld world(replication(100_ms), 1, 5_s, {}, {{"redis-2", ClockSettings{.offset = 60_min}}});
    Acquired acquired;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, acquired));
    world.run(20_s);
    REQUIRE(acquired.lease);

    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->node == world.node("redis-1"));
    CHECK(expired[0]->at == at(6_s + 1_ms));
    const auto deleted = world.messages(trace_kind::message_delivered, fmt::format("replicate DEL {}", lock_key));
    REQUIRE(deleted.size() == 1);
    CHECK(deleted[0]->node == world.node("redis-2"));
    CHECK(deleted[0]->at == at(6_s + 1_ms + 100_ms + 1_ms));
}

TEST_CASE("a replica keeps a key past its deadline and expires it by its own clock once promoted") {
    // 1. The key is set at 1.001s with a 2s TTL and reaches redis-2 at 1.102s.
    // 2. The primary crashes at 1.5s, before its expiry at 3.001s could send a DEL.
    // 3. redis-2 holds the dead key until the sentinel promotes it, and expires it then.
    ReplicatedWorld world(replication(100_ms), 1, 2_s);
    world.crash_at(1_s + 500_ms, "redis-1");
    Acquired acquired;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, acquired));
    world.run(20_s);
    REQUIRE(acquired.lease);

    const auto failover = events_of(world.engine, trace_kind::store_failover);
    REQUIRE(failover.size() == 1);
    CHECK(failover[0]->node_ref("to") == world.node("redis-2"));
    CHECK(failover[0]->at > at(3_s + 1_ms));
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->node == world.node("redis-2"));
    CHECK(expired[0]->at == failover[0]->at);
    CHECK(expired[0]->sequence > failover[0]->sequence);
    CHECK(expired[0]->text("value") == acquired.lease->value);
    CHECK(expired[0]->instant("expires_at") == at(3_s + 1_ms));
}

TEST_CASE("after the primary is down for down_after the sentinel promotes the replica with the largest offset") {
    // redis-2's link from redis-1 takes 10s, so at the failover only redis-3 has the SET:
    // redis-3 wins although redis-2 has the lower name.
    ReplicatedWorld world(replication(100_ms, 3_s), 2, 30_s, Links{{{"redis-1", "redis-2"}, 10_s}});
    world.crash_at(2_s, "redis-1");
    Acquired acquired;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, acquired));
    world.run(8_s);
    REQUIRE(acquired.lease);

    const auto failover = events_of(world.engine, trace_kind::store_failover);
    REQUIRE(failover.size() == 1);
    CHECK(failover[0]->node == world.node("sentinel"));
    CHECK(failover[0]->node_ref("from") == world.node("redis-1"));
    CHECK(failover[0]->node_ref("to") == world.node("redis-3"));
    CHECK(failover[0]->integer("offset") == 1);
    // Not before down_after of silence since the last answered PING (a second before the
    // crash), and within a ping period of it: a PING to the dead process is refused at once.
    CHECK(failover[0]->at >= at(1_s + 3_s));
    CHECK(failover[0]->at <= at(2_s + 3_s + 1_s + 10_ms));
}

TEST_CASE("the sentinel does not fail over a primary that answers") {
    ReplicatedWorld world(replication(100_ms, 3_s));
    world.run(30_s);
    CHECK(events_of(world.engine, trace_kind::store_failover).empty());
}

TEST_CASE("a lock set within the replication lag is granted again by the new primary") {
    // 1. server-1 gets the lock from redis-1 at 1.001s; the write would leave at 2.001s.
    // 2. redis-1 crashes at 1.5s: the write never leaves.
    // 3. The sentinel promotes redis-2, which never saw the key, and grants it to server-2
    //    while server-1's 30s lease is still running.
    ReplicatedWorld world(replication(1_s, 3_s));
    world.crash_at(1_s + 500_ms, "redis-1");
    Acquired first;
    Acquired second;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, first));
    world.host("server-2").spawn(acquire_after(world.host("server-2"), *world.client_2, 2_s, second));
    world.run();
    REQUIRE(first.lease);
    REQUIRE(second.lease);
    CHECK(world.messages(trace_kind::message_sent, fmt::format("replicate SET {} {}", lock_key, first.lease->value))
              .empty());

    const auto failover = events_of(world.engine, trace_kind::store_failover);
    REQUIRE(failover.size() == 1);
    CHECK(failover[0]->node_ref("to") == world.node("redis-2"));
    CHECK(failover[0]->integer("offset") == 0);

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 2);
    CHECK(granted[0]->node == world.node("redis-1"));
    CHECK(granted[0]->node_ref("holder") == world.node("server-1"));
    CHECK(granted[1]->node == world.node("redis-2"));
    CHECK(granted[1]->node_ref("holder") == world.node("server-2"));
    CHECK(granted[1]->text("value") == second.lease->value);
    CHECK(granted[1]->at > failover[0]->at);
    CHECK(granted[1]->at < granted[0]->instant("expires_at"));
}

TEST_CASE("WAIT 1 returns only after the replica acknowledged the write") {
    ReplicatedWorld world(replication(100_ms, 3_s, 1, 1_s));
    Acquired acquired;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, acquired));
    world.run(10_s);
    REQUIRE(acquired.lease);

    const auto waits = world.messages(trace_kind::message_sent, "WAIT 1 1000");
    REQUIRE(waits.size() == 1);
    CHECK(waits[0]->at == at(1_s + 2_ms));
    const auto acked = world.messages(trace_kind::message_delivered, "REPLCONF ACK 1");
    REQUIRE(acked.size() == 1);
    CHECK(acked[0]->at == at(1_s + 1_ms + 100_ms + 2_ms));
    const TraceEvent* answer = world.reply_to(*waits[0]);
    REQUIRE(answer);
    CHECK(answer->text("label") == "1");
    CHECK(answer->at == acked[0]->at);
    CHECK(answer->sequence > acked[0]->sequence);
    CHECK(acquired.got_at == answer->at + 1_ms);
}

TEST_CASE("WAIT returns 0 when the primary restarted before replicating, and the client gives the lock back") {
    // 1. redis-1 grants the lock at 1.001s; the write would leave at 1.101s.
    // 2. redis-1 crashes at 1.0015s and is back at 1.0018s, empty, before the sentinel
    //    notices: the write is lost, and the WAIT arriving at 1.003s waits in vain.
    // 3. After the 1s WAIT timeout the client sends its compare-and-delete and retries.
    ReplicatedWorld world(replication(100_ms, 3_s, 1, 1_s));
    world.crash_at(1_s + 1500_us, "redis-1");
    world.restart_at(1_s + 1800_us, "redis-1");
    Acquired acquired;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, acquired));
    world.run(10_s);

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() >= 2);
    const std::string first_value(granted[0]->text("value"));
    const auto waits = world.messages(trace_kind::message_sent, "WAIT 1 1000");
    REQUIRE(waits.size() >= 1);
    const TraceEvent* answer = world.reply_to(*waits[0]);
    REQUIRE(answer);
    CHECK(answer->text("label") == "0");
    CHECK(answer->at == waits[0]->at + 1_ms + 1_s);
    const auto given_back =
        world.messages(trace_kind::message_sent, fmt::format("DELEX {} IFEQ {}", lock_key, first_value));
    REQUIRE(given_back.size() == 1);
    CHECK(given_back[0]->at == answer->at + 1_ms);
    CHECK(events_of(world.engine, trace_kind::store_failover).empty());

    REQUIRE(acquired.lease);
    CHECK(acquired.lease->value != first_value);
    CHECK(acquired.got_at > given_back[0]->at);
}

TEST_CASE(
    "with WAIT 1 a client whose primary crashed before replicating holds nothing until a replica can acknowledge") {
    // 1. redis-1 grants the lock at 1.001s and crashes at 1.05s, before the lag passed.
    // 2. The WAIT is never answered; the client gives up and retries. After the failover
    //    redis-2 grants the key, but no replica is left to acknowledge it: WAIT returns 0.
    // 3. redis-1 comes back at 20s as a replica of redis-2; the next attempt holds.
    ReplicatedWorld world(replication(100_ms, 3_s, 1, 1_s));
    world.crash_at(1_s + 50_ms, "redis-1");
    world.restart_at(20_s, "redis-1");
    Acquired acquired;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, acquired));
    world.run();

    const auto failover = events_of(world.engine, trace_kind::store_failover);
    REQUIRE(failover.size() == 1);
    CHECK(failover[0]->node_ref("to") == world.node("redis-2"));
    const auto waits = world.messages(trace_kind::message_sent, "WAIT 1 1000");
    REQUIRE(waits.size() >= 2);
    CHECK(world.reply_to(*waits[0]) == nullptr);
    for (std::size_t i = 1; i < waits.size(); ++i) {
        const TraceEvent* answer = world.reply_to(*waits[i]);
        if (!answer) continue;  // sent to the dead primary before the failover
        if (answer->at < at(20_s)) CHECK(answer->text("label") == "0");
    }

    REQUIRE(acquired.lease);
    CHECK(acquired.got_at > at(20_s));
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE_FALSE(granted.empty());
    CHECK(granted.back()->node == world.node("redis-2"));
    CHECK(granted.back()->text("value") == acquired.lease->value);
}

TEST_CASE("a primary paused through a failover comes back as a replica of the new primary") {
    // 1. redis-1 is paused from 2s to 12s; the sentinel promotes redis-2 at about 5s.
    // 2. redis-1 answers again from 12s on, and Sentinel makes it a replica of redis-2.
    // 3. At 15s server-1 sets the lock on redis-2 and waits for one replica: redis-1
    //    applies the write after the lag and acknowledges it, so WAIT 1 returns 1.
    ReplicatedWorld world(replication(100_ms, 3_s, 1, 1_s));
    world.on_world(2_s, [&] { world.engine.pause(world.node("redis-1"), 10_s, "gc"); });
    Acquired acquired;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 15_s, acquired));
    world.run(30_s);

    const auto failover = events_of(world.engine, trace_kind::store_failover);
    REQUIRE(failover.size() == 1);
    CHECK(failover[0]->node_ref("to") == world.node("redis-2"));
    CHECK(failover[0]->at < at(12_s));

    REQUIRE(acquired.lease);
    const std::string stream = fmt::format("replicate SET {} {}", lock_key, acquired.lease->value);
    const auto delivered = world.messages(trace_kind::message_delivered, stream);
    REQUIRE(delivered.size() == 1);
    CHECK(delivered[0]->node == world.node("redis-1"));
    std::vector<const TraceEvent*> acks;
    for (const auto* event : events_of(world.engine, trace_kind::message_sent))
        if (event->node == world.node("redis-1") && event->text("label").rfind("REPLCONF ACK", 0) == 0)
            acks.push_back(event);
    REQUIRE(acks.size() == 1);
    CHECK(acks[0]->at == delivered[0]->at);
    CHECK(acquired.got_at == at(15_s + 1_ms + 100_ms + 3_ms));
}

TEST_CASE("after a failover the remaining replicas follow the new primary with its data") {
    // 1. server-1 sets the lock on redis-1 at 1s (60s TTL). redis-3 gets it after the lag;
    //    the stream to redis-2 is stuck on a 100s link.
    // 2. redis-1 crashes at 2s; the sentinel promotes redis-3, the replica with the key.
    //    Sentinel points redis-2 at redis-3, which sends it what it lacks.
    // 3. redis-3 crashes at 20s; redis-2 is promoted. It has the key, so server-2 gets the
    //    lock only when the key expires at 61.001s.
    ReplicatedWorld world(replication(100_ms, 3_s), 2, 60_s, Links{{{"redis-1", "redis-2"}, 100_s}});
    world.crash_at(2_s, "redis-1");
    world.crash_at(20_s, "redis-3");
    Acquired first;
    Acquired second;
    world.host("server-1").spawn(acquire_after(world.host("server-1"), *world.client_1, 1_s, first));
    world.host("server-2").spawn(acquire_after(world.host("server-2"), *world.client_2, 25_s, second));
    world.run(90_s);
    REQUIRE(first.lease);

    const auto failover = events_of(world.engine, trace_kind::store_failover);
    REQUIRE(failover.size() == 2);
    CHECK(failover[0]->node_ref("to") == world.node("redis-3"));
    CHECK(failover[1]->node_ref("to") == world.node("redis-2"));
    REQUIRE(second.lease);
    CHECK(second.got_at > at(61_s + 1_ms));
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE_FALSE(expired.empty());
    CHECK(expired[0]->node == world.node("redis-2"));
    CHECK(expired[0]->text("value") == first.lease->value);
}
