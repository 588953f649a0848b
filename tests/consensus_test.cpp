// models/stores/consensus_ensemble.hpp and consensus_lock_client.hpp: the ZooKeeper and etcd
// lock recipes on a three-node ensemble. Tokens only rise; the lowest key holds; watches
// on the predecessor wake one waiter, watches on the holder wake them all; the cluster
// expires a silent session; a leader failover loses no committed key.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "models/lock_client.hpp"
#include "models/stores/consensus_lock_client.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world_spec.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

const std::string prefix = "locks/renewals";

const char* name_of(StoreKind flavour) {
    return flavour == StoreKind::zookeeper ? "zookeeper" : "etcd";
}

// A three-node ensemble (zk-1.. or etcd-1..; the first leads) and `servers` job servers,
// every pair linked with a 1ms delay, deployed as a scenario would deploy them.
struct ConsensusWorld {
    explicit ConsensusWorld(StoreKind flavour, bool watch_holder = false, int servers = 2,
                            std::optional<Duration> heartbeat_interval = std::nullopt)
        : engine(1), network(engine) {
        for (int i = 1; i <= 3; ++i)
            world.store_nodes.push_back(fmt::format("{}-{}", flavour == StoreKind::zookeeper ? "zk" : "etcd", i));
        for (int i = 1; i <= servers; ++i) world.servers.push_back(fmt::format("server-{}", i));
        std::vector<std::string> names = world.store_nodes;
        names.insert(names.end(), world.servers.begin(), world.servers.end());
        for (const auto& name : names) engine.add_node(name);
        for (std::size_t a = 0; a < names.size(); ++a)
            for (std::size_t b = a + 1; b < names.size(); ++b)
                network.connect(node(names[a]), node(names[b]), DelayModel::fixed(1_ms));
        world.lock.store = flavour;
        world.lock.key = prefix;
        world.lock.ttl = 6_s;  // the session (lease) timeout
        world.lock.retry = RetrySpec{100_ms, 200_ms};
        world.lock.request_timeout = 1_s;
        world.lock.consensus = ConsensusSpec{3, watch_holder, 2_s};
        world.lock.consensus.heartbeat_interval = heartbeat_interval;
        const StoreContext context{engine, network, world, [this](const std::string& name) { return node(name); }};
        deployment = flavour == StoreKind::zookeeper ? deploy_zookeeper(context) : deploy_etcd(context);
        for (const auto& server : world.servers) clients.push_back(deployment->client_for(Host(engine, node(server))));
    }

    NodeId node(const std::string& name) const { return *engine.trace().find_node(name); }
    NodeId member(int n) const { return node(world.store_nodes[static_cast<std::size_t>(n - 1)]); }
    NodeId server(int n) const { return node(fmt::format("server-{}", n)); }
    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    void run(Duration horizon = 60_s) { engine.run(at(horizon)); }

    Engine engine;
    Network network;
    WorldSpec world;
    std::unique_ptr<StoreDeployment> deployment;
    std::vector<std::unique_ptr<LockStoreClient>> clients;  // clients[0] runs on server-1
};

// One turn with the lock, as a job server takes it. Times are true times, for the test.
struct Turn {
    std::optional<Lease> lease;
    Instant got_at;
    Instant released_at;
};

Task<void> take_turn(Host host, LockStoreClient& client, Duration start_after, Duration hold_for, Turn& turn) {
    co_await host.sleep(start_after);
    auto acquiring = client.acquire();
    Lease lease = co_await acquiring;
    turn.got_at = host.engine().now();
    turn.lease = lease;
    co_await host.sleep(hold_for);
    auto releasing = client.release(lease);
    co_await releasing;
    turn.released_at = host.engine().now();
}

// Server `n` takes a turn: asks after `start_after`, holds for `hold_for`.
void turn_of(ConsensusWorld& world, int n, Duration start_after, Duration hold_for, Turn& turn) {
    const Host host(world.engine, world.server(n));
    host.spawn(take_turn(host, *world.clients[static_cast<std::size_t>(n - 1)], start_after, hold_for, turn));
}

std::vector<const TraceEvent*> at_instant(const Engine& engine, std::string_view kind, Instant when) {
    std::vector<const TraceEvent*> found;
    for (const auto* event : events_of(engine, kind))
        if (event->at == when) found.push_back(event);
    return found;
}

}  // namespace

TEST_CASE("consensus tokens only rise, turn after turn") {
    const StoreKind flavour = GENERATE(StoreKind::zookeeper, StoreKind::etcd);
    INFO(name_of(flavour));
    ConsensusWorld world(flavour, false, 3);
    Turn turns[4];
    turn_of(world, 1, 1_s, 1_s, turns[0]);
    turn_of(world, 2, 3_s, 1_s, turns[1]);
    turn_of(world, 3, 5_s, 1_s, turns[2]);
    turn_of(world, 2, 7_s, 1_s, turns[3]);  // a client that held before gets a newer token
    world.run(20_s);
    std::int64_t previous = 0;
    for (const Turn& turn : turns) {
        REQUIRE(turn.lease);
        REQUIRE(turn.lease->token);
        CHECK(*turn.lease->token > previous);
        previous = *turn.lease->token;
    }
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 4);
    for (std::size_t i = 0; i < granted.size(); ++i) {
        CHECK(granted[i]->integer("token") == *turns[i].lease->token);
        CHECK(granted[i]->text("value") == turns[i].lease->value);
        CHECK(granted[i]->text("key") == prefix);
    }
}

TEST_CASE("consensus: the lowest key holds and a second client waits until the first releases") {
    const StoreKind flavour = GENERATE(StoreKind::zookeeper, StoreKind::etcd);
    INFO(name_of(flavour));
    ConsensusWorld world(flavour);
    Turn first;
    Turn second;
    turn_of(world, 1, 1_s, 5_s, first);
    turn_of(world, 2, 2_s, 1_s, second);
    world.run(20_s);
    REQUIRE(first.lease);
    REQUIRE(second.lease);
    CHECK(first.got_at < at(1_s + 100_ms));
    CHECK(*second.lease->token > *first.lease->token);

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(granted.size() == 2);
    REQUIRE(released.size() == 2);
    CHECK(granted[0]->node_ref("holder") == world.server(1));
    CHECK(released[0]->node_ref("holder") == world.server(1));
    CHECK(released[0]->text("value") == first.lease->value);
    CHECK(granted[1]->node_ref("holder") == world.server(2));
    CHECK(granted[1]->sequence > released[0]->sequence);
    CHECK(second.got_at > released[0]->at);
    CHECK(second.got_at < first.released_at + 10_ms);
}

TEST_CASE("consensus: with watch predecessor a release wakes exactly one waiter") {
    const StoreKind flavour = GENERATE(StoreKind::zookeeper, StoreKind::etcd);
    INFO(name_of(flavour));
    ConsensusWorld world(flavour, false, 4);
    Turn turns[4];
    turn_of(world, 1, 1_s, 5_s, turns[0]);
    turn_of(world, 2, 2_s, 1_s, turns[1]);
    turn_of(world, 3, 2_s + 100_ms, 1_s, turns[2]);
    turn_of(world, 4, 2_s + 200_ms, 1_s, turns[3]);
    world.run(30_s);
    for (const Turn& turn : turns) REQUIRE(turn.lease);

    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 4);
    const auto woken = at_instant(world.engine, trace_kind::watch_fired, released[0]->at);
    REQUIRE(woken.size() == 1);
    CHECK(woken[0]->node_ref("client") == world.server(2));
    CHECK(woken[0]->text("key") == turns[0].lease->value);
    CHECK(events_of(world.engine, trace_kind::watch_fired).size() == 3);  // one per release with a waiter
    for (std::size_t i = 1; i < 4; ++i) CHECK(turns[i].got_at > turns[i - 1].got_at);
}

TEST_CASE("consensus: with watch holder a release wakes every waiter") {
    const StoreKind flavour = GENERATE(StoreKind::zookeeper, StoreKind::etcd);
    INFO(name_of(flavour));
    ConsensusWorld world(flavour, true, 4);
    Turn turns[4];
    turn_of(world, 1, 1_s, 5_s, turns[0]);
    turn_of(world, 2, 2_s, 1_s, turns[1]);
    turn_of(world, 3, 2_s + 100_ms, 1_s, turns[2]);
    turn_of(world, 4, 2_s + 200_ms, 1_s, turns[3]);
    world.run(30_s);
    for (const Turn& turn : turns) REQUIRE(turn.lease);

    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 4);
    const auto woken = at_instant(world.engine, trace_kind::watch_fired, released[0]->at);
    REQUIRE(woken.size() == 3);  // N - 1 waiters of N clients
    std::set<NodeId> clients;
    for (const auto* event : woken) {
        clients.insert(event->node_ref("client"));
        CHECK(event->text("key") == turns[0].lease->value);
    }
    CHECK(clients == std::set<NodeId>{world.server(2), world.server(3), world.server(4)});
    CHECK(events_of(world.engine, trace_kind::watch_fired).size() == 3 + 2 + 1);
    // Still one holder at a time, in the order they asked.
    for (std::size_t i = 1; i < 4; ++i) CHECK(turns[i].got_at > turns[i - 1].got_at);
}

TEST_CASE(
    "consensus: the cluster expires the session of a client whose heartbeats stop, and the next waiter gets a higher "
    "token") {
    // 1. server-1 opens its session and takes the lock at 1s; server-2 waits from 2s.
    // 2. server-1 is paused from 2s for 30s: no heartbeats. The leader heard from it last
    //    at about 1s, so it expires the session a session timeout (6s) later, at its next
    //    look for expired sessions (etcd: every 500 ms; ZooKeeper: at the next multiple of
    //    its 2 s tick), deletes its key and wakes server-2, long before server-1 resumes.
    const StoreKind flavour = GENERATE(StoreKind::zookeeper, StoreKind::etcd);
    INFO(name_of(flavour));
    ConsensusWorld world(flavour);
    const Duration looks_every = flavour == StoreKind::etcd ? 500_ms : 2_s;
    world.on_world(2_s, [&] { world.engine.pause(world.server(1), 30_s, "gc"); });
    Turn first;
    Turn second;
    turn_of(world, 1, 1_s, 60_s, first);
    turn_of(world, 2, 2_s, 1_s, second);
    world.run(40_s);
    REQUIRE(first.lease);
    REQUIRE(second.lease);

    const auto expired_sessions = events_of(world.engine, trace_kind::session_expired);
    REQUIRE(expired_sessions.size() == 1);
    CHECK(expired_sessions[0]->node == world.member(1));
    CHECK(expired_sessions[0]->at >= at(1_s + 6_s));
    CHECK(expired_sessions[0]->at < at(1_s + 6_s + looks_every + 100_ms));
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->text("value") == first.lease->value);
    CHECK(expired[0]->node_ref("holder") == world.server(1));
    CHECK(expired[0]->integer("token") == *first.lease->token);
    CHECK(expired[0]->sequence > expired_sessions[0]->sequence);
    CHECK(expired[0]->at < at(1_s + 6_s + looks_every + 100_ms));

    CHECK(second.got_at > expired[0]->at);
    CHECK(second.got_at < at(2_s + 30_s));  // before server-1 even wakes up
    CHECK(*second.lease->token > *first.lease->token);
    // server-1's belief (its last acknowledged heartbeat's send time plus the timeout, on
    // its own clock, which is true time here) ended before the cluster expired it.
    CHECK(first.lease->valid_until - Instant{0} <= expired_sessions[0]->at - midnight);
}

TEST_CASE("consensus: a leader crash loses no committed key and grants nothing twice") {
    // 1. server-1 holds the lock from 1s to 20s and keeps heartbeating; server-2 waits.
    // 2. The leader crashes at 5s; after the election timeout another member takes over.
    // 3. The new leader still has server-1's key: server-2 is granted the lock only when
    //    server-1 releases it, and the new leader traces that release.
    const StoreKind flavour = GENERATE(StoreKind::zookeeper, StoreKind::etcd);
    INFO(name_of(flavour));
    ConsensusWorld world(flavour);
    world.on_world(5_s, [&] { world.engine.crash(world.member(1), "test"); });
    Turn first;
    Turn second;
    turn_of(world, 1, 1_s, 19_s, first);
    turn_of(world, 2, 2_s, 1_s, second);
    world.run(40_s);
    REQUIRE(first.lease);
    REQUIRE(second.lease);

    const auto leaders = events_of(world.engine, trace_kind::consensus_leader);
    REQUIRE(leaders.size() == 1);
    CHECK(leaders[0]->node_ref("previous") == world.member(1));
    CHECK(leaders[0]->node != world.member(1));
    CHECK(leaders[0]->at >= at(5_s + 2_s));
    CHECK(leaders[0]->integer("term") == 2);

    CHECK(events_of(world.engine, trace_kind::session_expired).empty());
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 2);
    CHECK(granted[0]->node == world.member(1));
    CHECK(granted[1]->node == leaders[0]->node);
    CHECK(granted[1]->node_ref("holder") == world.server(2));
    CHECK(granted[1]->at >= at(20_s));
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE_FALSE(released.empty());
    CHECK(released[0]->node == leaders[0]->node);
    CHECK(released[0]->text("value") == first.lease->value);
    CHECK(released[0]->integer("token") == *first.lease->token);
    CHECK(*second.lease->token > *first.lease->token);
}

TEST_CASE("ZooKeeper names lock nodes prefix/lock-%010d in the order they were created") {
    ConsensusWorld world(StoreKind::zookeeper, false, 3);
    Turn turns[4];
    turn_of(world, 1, 1_s, 2_s, turns[0]);
    turn_of(world, 2, 1_s + 100_ms, 1_s, turns[1]);
    turn_of(world, 3, 1_s + 200_ms, 1_s, turns[2]);
    turn_of(world, 1, 10_s, 1_s, turns[3]);  // after every earlier node was deleted
    world.run(20_s);
    std::vector<std::string> names;
    for (const Turn& turn : turns) {
        REQUIRE(turn.lease);
        names.push_back(turn.lease->value);
    }
    CHECK(names == std::vector<std::string>{"locks/renewals/lock-0000000000", "locks/renewals/lock-0000000001",
                                            "locks/renewals/lock-0000000002", "locks/renewals/lock-0000000003"});
}

TEST_CASE("etcd names each lock key prefix/ followed by its lease id in hex") {
    ConsensusWorld world(StoreKind::etcd, false, 2);
    Turn first;
    Turn second;
    turn_of(world, 1, 1_s, 2_s, first);
    turn_of(world, 2, 1_s + 100_ms, 1_s, second);
    world.run(20_s);
    REQUIRE(first.lease);
    REQUIRE(second.lease);
    // The lease each server was granted, as the LeaseGrant reply names it.
    std::vector<std::string> leases;
    for (int n = 1; n <= 2; ++n) {
        for (const auto* request : events_of(world.engine, trace_kind::message_sent)) {
            if (request->node != world.server(n) || request->text("label").rfind("LeaseGrant", 0) != 0) continue;
            for (const auto* reply : events_of(world.engine, trace_kind::message_sent))
                if (reply->has("reply_to") && reply->integer("reply_to") == request->integer("id"))
                    leases.push_back(std::string(reply->text("label")));
        }
    }
    REQUIRE(leases.size() == 2);
    REQUIRE(leases[0].rfind("lease ", 0) == 0);
    REQUIRE(leases[1].rfind("lease ", 0) == 0);
    CHECK(leases[0] != leases[1]);
    CHECK(first.lease->value == prefix + "/" + leases[0].substr(6));
    CHECK(second.lease->value == prefix + "/" + leases[1].substr(6));
}

TEST_CASE("consensus: a failover loses no committed write even after a follower missed entries while cut off") {
    // 1. From 0.5s to 1.5s the leader's messages to member 3 are lost: member 3 misses
    //    server-1's session and key, which member 2 acknowledges.
    // 2. From 1.5s on the leader's messages to member 2 are lost instead. server-2 opens a
    //    session and creates its key at 2s; only member 3 can acknowledge them, and it
    //    must not do so without having the entries server-1 wrote before.
    // 3. The leader crashes at 5s. Whoever is elected must still have server-2's session
    //    and key: server-2 never has to open a second session, and gets the lock with the
    //    key it created at 2s when server-1 releases at 20s.
    const StoreKind flavour = GENERATE(StoreKind::zookeeper, StoreKind::etcd);
    INFO(name_of(flavour));
    ConsensusWorld world(flavour);
    world.on_world(500_ms, [&] { world.network.cut(world.member(1), world.member(3)); });
    world.on_world(1_s + 500_ms, [&] {
        world.network.heal(world.member(1), world.member(3));
        world.network.cut(world.member(1), world.member(2));
    });
    world.on_world(5_s, [&] { world.engine.crash(world.member(1), "test"); });
    Turn first;
    Turn second;
    turn_of(world, 1, 1_s, 19_s, first);
    turn_of(world, 2, 2_s, 1_s, second);
    world.run(40_s);
    REQUIRE(first.lease);
    REQUIRE(second.lease);

    REQUIRE(events_of(world.engine, trace_kind::consensus_leader).size() == 1);
    CHECK(events_of(world.engine, trace_kind::session_expired).empty());
    int sessions_opened = 0;
    for (const auto* sent : events_of(world.engine, trace_kind::message_sent)) {
        const std::string label(sent->text("label"));
        if (sent->node == world.server(2) && (label.rfind("connect", 0) == 0 || label.rfind("LeaseGrant", 0) == 0))
            ++sessions_opened;
    }
    CHECK(sessions_opened == 1);
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 2);
    CHECK(granted[1]->node_ref("holder") == world.server(2));
    CHECK(granted[1]->at >= at(20_s));
    CHECK(*second.lease->token > *first.lease->token);
}

// Each ack wakes only the write it committed. With hour-long links thousands of writes
// (session keepalives) are waiting at once; waking all of them on every ack made this run
// spin past 50 million events at 3.5 h of simulated time, which the event limit then
// blamed on "retrying without a delay". Bounded now by the traffic itself: under 2 million.
TEST_CASE("hour-long links and a five-hour horizon replicate without waking every waiting write") {
    const StoreKind flavour = GENERATE(StoreKind::etcd, StoreKind::zookeeper);
    INFO(name_of(flavour));
    const Scenario scenario = parse_scenario(fmt::format(R"({{
  "name": "slow-links",
  "description": "every link takes an hour",
  "seed": 1,
  "horizon": "5h",
  "servers": ["server-1", "server-2", "server-3"],
  "network": {{ "delay": "1h" }},
  "lock": {{ "store": "{}", "key": "/locks/renewals", "ttl": "30s", "ensemble": 3 }},
  "job": {{ "name": "renewals", "at": "00:00", "customers": [41, 42, 43], "period": "2026-10", "work_per_customer": "4s" }},
  "designs": {{ "only": {{}} }}
}})",
                                                         name_of(flavour)),
                                             "slow-links.json", metric_names());
    ScenarioOutcome outcome;
    REQUIRE_NOTHROW(outcome = run_scenario(scenario, 1, std::nullopt, RunOptions{.event_limit = 2'000'000}));
    REQUIRE(outcome.designs.size() == 1);
}

// etcd's leader heartbeats every --heartbeat-interval, 100 ms against its 1 s election
// timeout by default (embed.Config: TickMs 100, ElectionMs 1000); a ZooKeeper leader here
// pings a quarter of the election timeout.
TEST_CASE("the leader heartbeats its followers every heartbeat_interval: a tenth of the election timeout in etcd") {
    const auto heartbeats_in_10s = [](StoreKind flavour, std::optional<Duration> interval) {
        ConsensusWorld world(flavour, false, 2, interval);
        world.run(10_s);
        std::size_t sent = 0;
        for (const auto* event : events_of(world.engine, trace_kind::message_sent))
            if (event->node == world.member(1) && event->text("label") == "heartbeat") ++sent;
        return sent;
    };
    // Two followers, 10 s: 2 x 10 s / interval, give or take the first and the last.
    const std::size_t etcd_default = heartbeats_in_10s(StoreKind::etcd, std::nullopt);  // 200 ms
    CHECK(etcd_default >= 98);
    CHECK(etcd_default <= 102);
    const std::size_t etcd_500ms = heartbeats_in_10s(StoreKind::etcd, 500_ms);
    CHECK(etcd_500ms >= 38);
    CHECK(etcd_500ms <= 42);
    const std::size_t zookeeper = heartbeats_in_10s(StoreKind::zookeeper, std::nullopt);  // 500 ms
    CHECK(zookeeper >= 38);
    CHECK(zookeeper <= 42);
}
