// models/stores/consul_server.hpp and consul_client.hpp: Consul sessions and the KV store's
// acquire and release. The LockIndex rises with every grant; a session is invalidated only
// after twice its TTL without a renewal, by the server's monotonic timer; invalidation, not
// a release, holds the key back for the session's lock-delay.
#include <catch2/catch.hpp>

#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/lock_client.hpp"
#include "models/lock_holder.hpp"
#include "models/stores/consul_client.hpp"
#include "models/stores/consul_server.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/stores/store_registry.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

const std::string consul_key = "locks/renewals";
using ConsulOutcome = ConsulAcquireReply::Outcome;

// One Consul server and two job servers. Requests run as events on the Consul node, as
// they would when they arrive there.
struct ConsulServerWorld {
    explicit ConsulServerWorld(ClockSettings consul_clock = {})
        : engine(1),
          consul(engine.add_node("consul", consul_clock)),
          server_1(engine.add_node("server-1")),
          server_2(engine.add_node("server-2")),
          store(Host(engine, consul)) {}

    void on_consul(Duration when, std::function<void()> request) {
        engine.schedule_at(at(when), consul, std::move(request));
    }
    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    // Creates a session at `when` and notes its ID in `id`.
    void session_at(Duration when, NodeId client, Duration ttl, Duration lock_delay, std::string& id) {
        on_consul(when, [this, client, ttl, lock_delay, &id] { id = store.create_session(client, ttl, lock_delay); });
    }
    // An acquire at `when` whose reply is appended to `replies`.
    void acquire_at(Duration when, const std::string& session, NodeId client,
                    std::vector<ConsulAcquireReply>& replies) {
        on_consul(when, [this, &session, client, &replies] {
            replies.push_back(store.acquire(consul_key, session, client));
        });
    }
    void run() { engine.run(at(10_min)); }

    Engine engine;
    NodeId consul;
    NodeId server_1;
    NodeId server_2;
    ConsulServer store;
};

std::vector<ConsulOutcome> outcomes_of(const std::vector<ConsulAcquireReply>& replies) {
    std::vector<ConsulOutcome> outcomes;
    for (const auto& reply : replies) outcomes.push_back(reply.outcome);
    return outcomes;
}

std::vector<std::int64_t> lock_indexes_of(const std::vector<ConsulAcquireReply>& replies) {
    std::vector<std::int64_t> indexes;
    for (const auto& reply : replies)
        if (reply.outcome == ConsulOutcome::acquired) indexes.push_back(reply.lock_index);
    return indexes;
}

}  // namespace

TEST_CASE("the first acquire of a key gets LockIndex 1 and traces lock.granted with the session") {
    ConsulServerWorld world;
    std::string session;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(1_s, world.server_1, 10_s, 15_s, session);
    world.acquire_at(1_s, session, world.server_1, replies);
    world.run();
    REQUIRE(replies.size() == 1);
    CHECK(replies[0].outcome == ConsulOutcome::acquired);
    CHECK(replies[0].lock_index == 1);

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at == at(1_s));
    CHECK(granted[0]->node == world.consul);
    CHECK(granted[0]->text("key") == consul_key);
    CHECK(granted[0]->text("value") == session);
    CHECK(granted[0]->integer("token") == 1);
    CHECK(granted[0]->node_ref("holder") == world.server_1);
    CHECK(granted[0]->duration("ttl") == 10_s);
    CHECK(granted[0]->instant("expires_at") == at(21_s));  // twice the TTL
}

TEST_CASE("session IDs look like Consul's UUIDs and differ") {
    ConsulServerWorld world;
    std::string first;
    std::string second;
    world.session_at(1_s, world.server_1, 10_s, 15_s, first);
    world.session_at(1_s, world.server_2, 10_s, 15_s, second);
    world.run();
    CHECK(first.size() == 36);
    CHECK(first[8] == '-');
    CHECK(first[23] == '-');
    CHECK(first != second);
}

TEST_CASE("an acquire while another session holds the key is refused without a reason") {
    ConsulServerWorld world;
    std::string one;
    std::string two;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 15_s, one);
    world.session_at(0_s, world.server_2, 10_s, 15_s, two);
    world.acquire_at(1_s, one, world.server_1, replies);
    world.acquire_at(2_s, two, world.server_2, replies);
    world.run();
    CHECK(outcomes_of(replies) == std::vector{ConsulOutcome::acquired, ConsulOutcome::held});
    const auto refused = events_of(world.engine, trace_kind::lock_refused);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->at == at(2_s));
    CHECK(refused[0]->node_ref("client") == world.server_2);
    CHECK_FALSE(refused[0]->has("reason"));
}

TEST_CASE("the holder's own session acquires again without raising the LockIndex") {
    ConsulServerWorld world;
    std::string session;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 15_s, session);
    world.acquire_at(1_s, session, world.server_1, replies);
    world.acquire_at(2_s, session, world.server_1, replies);
    world.run();
    CHECK(lock_indexes_of(replies) == std::vector<std::int64_t>{1, 1});
    CHECK(events_of(world.engine, trace_kind::lock_granted).size() == 1);
}

TEST_CASE("a release lets the key go at once, keeps the LockIndex, and the next acquire raises it") {
    ConsulServerWorld world;
    std::string one;
    std::string two;
    std::vector<ConsulAcquireReply> replies;
    std::vector<bool> released;
    world.session_at(0_s, world.server_1, 10_s, 15_s, one);
    world.session_at(0_s, world.server_2, 10_s, 15_s, two);
    world.acquire_at(1_s, one, world.server_1, replies);
    world.on_consul(2_s, [&] { released.push_back(world.store.release(consul_key, two, world.server_2)); });
    world.on_consul(3_s, [&] { released.push_back(world.store.release(consul_key, one, world.server_1)); });
    world.acquire_at(3_s, two, world.server_2, replies);  // no lock-delay after a release
    world.run();
    CHECK(released == std::vector<bool>{false, true});
    CHECK(outcomes_of(replies) == std::vector{ConsulOutcome::acquired, ConsulOutcome::acquired});
    CHECK(lock_indexes_of(replies) == std::vector<std::int64_t>{1, 2});

    const auto events = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(events.size() == 1);
    CHECK(events[0]->at == at(3_s));
    CHECK(events[0]->text("value") == one);
    CHECK(events[0]->integer("token") == 1);
    CHECK(events[0]->node_ref("holder") == world.server_1);
    CHECK(events[0]->node_ref("by") == world.server_1);
    CHECK_FALSE(events[0]->flag("plain"));
}

TEST_CASE("a session is invalidated twice its TTL after its last renewal, not at the TTL") {
    ConsulServerWorld world;
    std::string session;
    std::vector<ConsulAcquireReply> replies;
    std::vector<bool> renewed;
    world.session_at(0_s, world.server_1, 10_s, 0_s, session);
    world.acquire_at(0_s, session, world.server_1, replies);
    world.on_consul(5_s, [&] { renewed.push_back(world.store.renew_session(session)); });
    world.on_consul(24_s, [&] { renewed.push_back(world.store.renew_session(session)); });  // past the TTL, within 2x
    world.on_consul(44_s + 1_ms, [&] { renewed.push_back(world.store.renew_session(session)); });
    world.run();
    CHECK(renewed == std::vector<bool>{true, true, false});

    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(44_s));
    CHECK(expired[0]->text("value") == session);
    CHECK(expired[0]->integer("token") == 1);
    CHECK(expired[0]->node_ref("holder") == world.server_1);
    // The session ended: there is no wall-clock expiry to report.
    CHECK_FALSE(expired[0]->has("expires_at"));

    const auto renewals = events_of(world.engine, trace_kind::lock_renewed);
    REQUIRE(renewals.size() == 2);
    CHECK(renewals[1]->at == at(24_s));
    CHECK(renewals[1]->integer("token") == 1);
    CHECK(renewals[1]->instant("expires_at") == at(44_s));
}

TEST_CASE("after an invalidation the key is refused for the lock-delay, with the reason, then granted") {
    ConsulServerWorld world;
    std::string one;
    std::string two;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 15_s, one);
    world.acquire_at(0_s, one, world.server_1, replies);
    // server-1's session is invalidated at 20s; server-2's is kept alive.
    world.session_at(19_s, world.server_2, 10_s, 15_s, two);
    world.acquire_at(20_s + 1_ms, two, world.server_2, replies);
    world.acquire_at(35_s - 1_ms, two, world.server_2, replies);
    world.acquire_at(35_s, two, world.server_2, replies);
    world.run();
    CHECK(outcomes_of(replies) == std::vector{ConsulOutcome::acquired, ConsulOutcome::lock_delay,
                                              ConsulOutcome::lock_delay, ConsulOutcome::acquired});
    CHECK(lock_indexes_of(replies) == std::vector<std::int64_t>{1, 2});

    const auto refused = events_of(world.engine, trace_kind::lock_refused);
    REQUIRE(refused.size() == 2);
    CHECK(refused[0]->text("reason") == "lock-delay");
    CHECK(refused[0]->node_ref("client") == world.server_2);
}

TEST_CASE("with a lock-delay of 0s the key can be acquired the moment the session is invalidated") {
    ConsulServerWorld world;
    std::string one;
    std::string two;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 0_s, one);
    world.acquire_at(0_s, one, world.server_1, replies);
    world.session_at(19_s, world.server_2, 10_s, 0_s, two);
    world.acquire_at(20_s + 1_ms, two, world.server_2, replies);
    world.run();
    CHECK(outcomes_of(replies) == std::vector{ConsulOutcome::acquired, ConsulOutcome::acquired});
}

TEST_CASE("a lock-delay above 60s is held to 60s, as Consul caps it") {
    ConsulServerWorld world;
    std::string one;
    std::string two;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 90_s, one);
    world.acquire_at(0_s, one, world.server_1, replies);
    world.session_at(75_s, world.server_2, 10_s, 0_s, two);
    world.acquire_at(80_s - 1_ms, two, world.server_2, replies);
    world.acquire_at(80_s, two, world.server_2, replies);
    world.run();
    CHECK(outcomes_of(replies) ==
          std::vector{ConsulOutcome::acquired, ConsulOutcome::lock_delay, ConsulOutcome::acquired});
}

TEST_CASE("destroying a session that still holds the key starts the lock-delay too") {
    ConsulServerWorld world;
    std::string one;
    std::string two;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 15_s, one);
    world.session_at(0_s, world.server_2, 10_s, 15_s, two);
    world.acquire_at(0_s, one, world.server_1, replies);
    world.on_consul(2_s, [&] { world.store.destroy_session(one, world.server_1); });
    world.acquire_at(3_s, two, world.server_2, replies);
    world.run();
    CHECK(outcomes_of(replies) == std::vector{ConsulOutcome::acquired, ConsulOutcome::lock_delay});
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(2_s));
    CHECK(released[0]->node_ref("by") == world.server_1);
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());
}

TEST_CASE("an acquire with a session that no longer exists is an error, traced as an invalid session") {
    ConsulServerWorld world;
    std::string session;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 15_s, session);
    world.acquire_at(21_s, session, world.server_1, replies);
    world.run();
    CHECK(outcomes_of(replies) == std::vector{ConsulOutcome::invalid_session});
    const auto refused = events_of(world.engine, trace_kind::lock_refused);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->text("reason") == "invalid session");
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());  // it held nothing
}

TEST_CASE("a forward step of the Consul server's wall clock invalidates no session and shortens no lock-delay") {
    ConsulServerWorld world;
    std::string one;
    std::string two;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 15_s, one);
    world.acquire_at(0_s, one, world.server_1, replies);
    world.on_world(5_s, [&] { world.engine.step_wall_clock(world.consul, 60_s); });
    world.session_at(19_s, world.server_2, 10_s, 15_s, two);
    world.acquire_at(19_s, two, world.server_2, replies);
    world.on_world(25_s, [&] { world.engine.step_wall_clock(world.consul, 60_s); });
    world.acquire_at(30_s, two, world.server_2, replies);
    world.run();
    CHECK(outcomes_of(replies) == std::vector{ConsulOutcome::acquired, ConsulOutcome::held, ConsulOutcome::lock_delay});
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(20_s));
}

TEST_CASE("a restarted Consul server keeps its sessions and keys, restarts their timers, and forgets lock-delays") {
    ConsulServerWorld world;
    std::string one;
    std::string two;
    std::string three;
    std::vector<ConsulAcquireReply> replies;
    world.session_at(0_s, world.server_1, 10_s, 15_s, one);
    world.acquire_at(0_s, one, world.server_1, replies);
    world.session_at(0_s, world.server_2, 10_s, 15_s, two);
    // Down from 15s to 18s: server-1's session, due at 20s, is given 2 x TTL from 18s.
    world.on_world(15_s, [&] { world.engine.crash(world.consul, "test"); });
    world.on_world(18_s, [&] { world.engine.restart(world.consul); });
    // (A crash drops what was due on the node: requests after it are scheduled from outside.)
    world.on_world(19_s, [&] { replies.push_back(world.store.acquire(consul_key, two, world.server_2)); });
    world.run();
    CHECK(outcomes_of(replies) == std::vector{ConsulOutcome::acquired, ConsulOutcome::held});
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);  // both sessions end at 38s; only server-1's held the key…
    CHECK(expired[0]->at == at(38_s));
    CHECK(expired[0]->text("value") == one);

    // …and a lock-delay set before a crash is gone after it.
    ConsulServerWorld second;
    std::vector<ConsulAcquireReply> after;
    second.session_at(0_s, second.server_1, 10_s, 60_s, one);
    second.acquire_at(0_s, one, second.server_1, after);
    second.on_world(25_s, [&] { second.engine.crash(second.consul, "test"); });
    second.on_world(26_s, [&] { second.engine.restart(second.consul); });
    second.on_world(27_s, [&] {
        three = second.store.create_session(second.server_2, 10_s, 15_s);
        after.push_back(second.store.acquire(consul_key, three, second.server_2));
    });
    second.run();
    CHECK(outcomes_of(after) == std::vector{ConsulOutcome::acquired, ConsulOutcome::acquired});
}

namespace {

// A Consul server and two job servers, every pair linked with a 1ms delay, deployed as a
// scenario deploys them: a session TTL of 10s, a lock-delay of 15s, retries every 100-200ms.
struct ConsulClientWorld {
    explicit ConsulClientWorld(Duration lock_delay = 15_s) : engine(1), network(engine) {
        world.store_nodes = {"consul"};
        world.servers = {"server-1", "server-2"};
        for (const auto& name : {"consul", "server-1", "server-2"}) engine.add_node(name);
        network.connect(node("consul"), node("server-1"), DelayModel::fixed(1_ms));
        network.connect(node("consul"), node("server-2"), DelayModel::fixed(1_ms));
        network.connect(node("server-1"), node("server-2"), DelayModel::fixed(1_ms));
        world.lock.store = StoreKind::consul;
        world.lock.key = consul_key;
        world.lock.ttl = 10_s;
        world.lock.retry = RetrySpec{100_ms, 200_ms};
        world.lock.request_timeout = 1_s;
        world.lock.consul.lock_delay = lock_delay;
        const StoreContext context{engine, network, world, [this](const std::string& name) { return node(name); }};
        deployment = deploy_consul(context);
        for (const auto& server : world.servers) clients.push_back(deployment->client_for(Host(engine, node(server))));
    }

    NodeId node(const std::string& name) const { return *engine.trace().find_node(name); }
    NodeId server(int n) const { return node(fmt::format("server-{}", n)); }
    LockStoreClient& client(int n) { return *clients[static_cast<std::size_t>(n - 1)]; }
    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    void run(Duration horizon = 3_min) { engine.run(at(horizon)); }

    Engine engine;
    Network network;
    WorldSpec world;
    std::unique_ptr<StoreDeployment> deployment;
    std::vector<std::unique_ptr<LockStoreClient>> clients;  // clients[0] runs on server-1
};

// A holder's turn, in true times for the test, and what its renewals came to.
struct ConsulHolding {
    std::optional<Lease> lease;
    Instant got_at;
    std::vector<ExtendResult::Outcome> renewals;
    Instant released_at;
};

// Asks after `start_after`; once granted renews every 3s for `hold_for`, stopping at the
// first refusal; then releases.
Task<void> hold_consul_lock(Host host, LockStoreClient& client, Duration start_after, Duration hold_for,
                            ConsulHolding& holding) {
    co_await host.sleep(start_after);
    auto acquiring = client.acquire();
    Lease lease = co_await acquiring;
    holding.got_at = host.engine().now();
    holding.lease = lease;
    for (Duration held{}; held < hold_for; held += 3_s) {
        co_await host.sleep(3_s);
        auto extending = client.extend(lease);
        const ExtendResult result = co_await extending;
        holding.renewals.push_back(result.outcome);
        if (result.outcome == ExtendResult::Outcome::refused) break;
    }
    auto releasing = client.release(lease);
    co_await releasing;
    holding.released_at = host.engine().now();
}

void hold_from(ConsulClientWorld& world, int n, Duration start_after, Duration hold_for, ConsulHolding& holding) {
    const Host host(world.engine, world.server(n));
    host.spawn(hold_consul_lock(host, world.client(n), start_after, hold_for, holding));
}

std::vector<std::string> labels_sent(const Engine& engine) {
    std::vector<std::string> labels;
    for (const auto* event : events_of(engine, trace_kind::message_sent))
        labels.push_back(std::string(event->text("label")));
    return labels;
}

}  // namespace

TEST_CASE("a Consul client creates a session, then acquires the key with it, as the HTTP API is called") {
    ConsulClientWorld world;
    ConsulHolding holding;
    hold_from(world, 1, 1_s, 0_s, holding);
    world.run();
    REQUIRE(holding.lease);
    const std::string session = holding.lease->value.substr(0, 8) + "…";  // labels abbreviate the UUID
    CHECK(holding.lease->token == 1);
    const auto labels = labels_sent(world.engine);
    REQUIRE(labels.size() >= 8);
    CHECK(labels[0] == R"(PUT /v1/session/create {"TTL": "10s", "LockDelay": "15s"})");
    CHECK(labels[1] == fmt::format(R"({{"ID": "{}"}})", session));
    CHECK(labels[2] == fmt::format("PUT /v1/kv/{}?acquire={}", consul_key, session));
    CHECK(labels[3] == "true (LockIndex 1)");
    CHECK(labels[4] == fmt::format("PUT /v1/kv/{}?release={}", consul_key, session));
    CHECK(labels[5] == "true");
    CHECK(labels[6] == fmt::format("PUT /v1/session/destroy/{}", session));
}

TEST_CASE("a Consul holder that renews keeps the lock past twice its TTL, and a release hands it on at once") {
    ConsulClientWorld world;
    ConsulHolding first;
    ConsulHolding second;
    hold_from(world, 1, 0_s, 45_s, first);
    hold_from(world, 2, 1_s, 0_s, second);
    world.run();
    REQUIRE(first.lease);
    REQUIRE(second.lease);
    CHECK(std::all_of(first.renewals.begin(), first.renewals.end(),
                      [](auto outcome) { return outcome == ExtendResult::Outcome::extended; }));
    // server-2 waited 45s, more than four session TTLs, without losing its session, and took the lock
    // as soon as server-1 let it go: a release starts no lock-delay.
    CHECK(second.got_at >= first.released_at - 2_ms);
    CHECK(second.got_at <= first.released_at + 250_ms);
    CHECK(second.lease->token == 2);
    for (const auto* refused : events_of(world.engine, trace_kind::lock_refused)) CHECK_FALSE(refused->has("reason"));
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());
}

TEST_CASE("a paused Consul holder loses its session at twice the TTL, and the next waits out the lock-delay") {
    ConsulClientWorld world;
    ConsulHolding first;
    ConsulHolding second;
    hold_from(world, 1, 0_s, 30_s, first);
    hold_from(world, 2, 1_s, 0_s, second);
    // server-1 renews at 3s (its session is then due at 23s), and is frozen from 4s to 44s.
    world.on_world(4_s, [&] { world.engine.pause(world.server(1), 40_s, "gc"); });
    world.run();
    REQUIRE(first.lease);
    REQUIRE(second.lease);
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at > at(23_s));
    CHECK(expired[0]->at < at(23_s + 10_ms));
    // Refused for the 15s lock-delay, then granted with the next LockIndex.
    CHECK(second.got_at >= expired[0]->at + 15_s);
    CHECK(second.got_at <= expired[0]->at + 15_s + 250_ms);
    CHECK(second.lease->token == 2);
    bool refused_for_lock_delay = false;
    for (const auto* refused : events_of(world.engine, trace_kind::lock_refused))
        refused_for_lock_delay =
            refused_for_lock_delay || (refused->has("reason") && refused->text("reason") == "lock-delay");
    CHECK(refused_for_lock_delay);
    // server-1 wakes at 44s; its next renewal is answered 404: the lock is gone.
    REQUIRE_FALSE(first.renewals.empty());
    CHECK(first.renewals.back() == ExtendResult::Outcome::refused);
}

TEST_CASE("a Consul holder keeps no deadline of its own: api.Lock times nothing on its clock") {
    ConsulClientWorld world;
    ConsulHolding holding;
    hold_from(world, 1, 1_s, 0_s, holding);
    world.run();
    REQUIRE(holding.lease);
    CHECK(holding.lease->valid_until == never);
}

namespace {

Task<void> believe_consul_lock(LockHolder& holder, std::shared_ptr<HeldLease>& held) {
    auto acquiring = holder.acquire();
    held = co_await acquiring;
}

// server-1 holds through a LockHolder, which renews every TTL/2 (5 s, api.Lock's RenewPeriodic)
// and watches the key.
struct ConsulBelief {
    explicit ConsulBelief(ConsulClientWorld& world)
        : holder(Host(world.engine, world.server(1)), world.client(1), world.world.lock) {
        Host(world.engine, world.server(1)).spawn(believe_consul_lock(holder, held));
    }
    LockHolder holder;
    std::shared_ptr<HeldLease> held;
};

std::vector<const TraceEvent*> beliefs_ended(const Engine& engine, NodeId node) {
    std::vector<const TraceEvent*> ended;
    for (const auto* event : events_of(engine, trace_kind::belief_ended))
        if (event->node == node) ended.push_back(event);
    return ended;
}

}  // namespace

// api/lock.go: monitorLock reads the key in blocking queries and closes the lock's channel
// when the key no longer carries the session; RenewPeriodic renews the session, and a
// pause only delays it.
TEST_CASE("a paused Consul holder renews on waking while the server still keeps its session, and believes on") {
    ConsulClientWorld world;
    ConsulBelief belief(world);
    // The session, made at 0 s, is first renewed at 5 s (RenewPeriodic's TTL/2): without it
    // the server invalidates the session at 20 s. Frozen from 4 s to 19 s, server-1 sends
    // its overdue renewal on waking, and it lands before 20 s.
    world.on_world(4_s, [&] { world.engine.pause(world.server(1), 15_s, "gc"); });
    world.run(1_min);
    REQUIRE(belief.held);
    CHECK(belief.held->believed);
    CHECK(beliefs_ended(world.engine, world.server(1)).empty());
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());
}

TEST_CASE("a paused Consul holder learns on waking, from its watch on the key, that the server released its lock") {
    ConsulClientWorld world;
    ConsulBelief belief(world);
    // Frozen from 4 s, before its first renewal was due (5 s): the session made at 0 s ends
    // at 20 s, twice the TTL on.
    world.on_world(4_s, [&] { world.engine.pause(world.server(1), 40_s, "gc"); });
    world.run(1_min);
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at > at(20_s));
    CHECK(expired[0]->at < at(20_s + 10_ms));
    const auto ended = beliefs_ended(world.engine, world.server(1));
    REQUIRE(ended.size() == 1);
    // The watch's answer waited for server-1 to wake at 44 s, and ends the belief before
    // the renewal sent on waking is answered 404.
    CHECK(ended[0]->at >= at(44_s));
    CHECK(ended[0]->at <= at(44_s + 1_ms));
    CHECK(ended[0]->text("reason") == "lock lost: its watch saw the key no longer carry its session");
}

TEST_CASE("a Consul holder cut off from the server believes until its watch gets no answer, not for one TTL") {
    ConsulClientWorld world;
    ConsulBelief belief(world);
    // The watch's blocking query left at about 2 ms; cut off at 5 s, just before its first
    // renewal, server-1 renews in vain, and the server invalidates its session at about
    // 20 s, but the answer waits in the cut.
    world.on_world(5_s, [&] {
        world.network.cut(world.server(1), world.node("consul"));
        world.network.cut(world.node("consul"), world.server(1));
    });
    world.run(10_min);
    const auto ended = beliefs_ended(world.engine, world.server(1));
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->text("reason") ==
          "lock lost: its watch on the key got no answer within the query's 5m wait and 1s request timeout");
    CHECK(ended[0]->at > at(5_min));
    CHECK(ended[0]->at < at(5_min + 1_s + 10_ms));
}

namespace {

// A scenario file with a Consul lock: `lock` is the lock object's JSON.
std::string consul_scenario(const std::string& lock) {
    return R"({"name": "consul", "description": "d", "seed": 1, "servers": ["server-1", "server-2"],
        "network": {"delay": "1ms"}, "lock": )" +
           lock + R"(, "job": {"name": "renewals", "at": "00:00", "customers": [41], "period": "2026-10",
        "work_per_customer": "1s"}, "designs": {"only": {}}})";
}

}  // namespace

TEST_CASE("the loader gives a Consul lock a 15s lock-delay by default and one node named consul") {
    const auto defaults = parse_scenario(
        consul_scenario(R"({"store": "consul", "key": "locks/renewals", "ttl": "10s"})"), "c.json", metric_names());
    const WorldSpec& world = defaults.designs.at(0).world;
    CHECK(world.lock.store == StoreKind::consul);
    CHECK(world.lock.consul.lock_delay == 15_s);
    CHECK(world.store_nodes == std::vector<std::string>{"consul"});
    CHECK(gives_tokens(world.lock));

    const auto off = parse_scenario(
        consul_scenario(R"({"store": "consul", "key": "locks/renewals", "ttl": "10s", "lock_delay": "0s"})"), "c.json",
        metric_names());
    CHECK(off.designs.at(0).world.lock.consul.lock_delay == 0_s);
    CHECK(says(error_of(consul_scenario(R"({"store": "consul", "key": "k", "ttl": "10s", "lock_delay": "61s"})")),
               "/lock/lock_delay: expected a lock-delay from 0s (none) to 60s"));
    CHECK(says(error_of(consul_scenario(R"({"store": "consul", "key": "k", "ttl": "9s"})")),
               "/lock/ttl: expected a session TTL from 10s to 24h"));
}

TEST_CASE("consul-lock-delay: the next holder waits out the lock-delay, and without one takes the lock at once") {
    const auto scenario = load_scenario_file(scenario_path("consul-lock-delay.json"), metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed);

    // With the lock-delay: server-1's session ends about 25s in (its last renewal at 5s,
    // RenewPeriodic's TTL/2, plus twice the 10s TTL); the others are refused for lock-delay,
    // and one is granted 15s later, after server-1 woke at 31s, charged 42 and stopped.
    const Trace& delayed = design_named(outcome, "lock-delay").trace;
    const auto expired = events_of(delayed, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->integer("token") == 1);
    CHECK(expired[0]->at > at(25_s));
    CHECK(expired[0]->at < at(25_s + 10_ms));
    const auto granted = events_of(delayed, trace_kind::lock_granted);
    REQUIRE(granted.size() >= 2);
    CHECK(granted[1]->integer("token") == 2);
    CHECK(granted[1]->at >= expired[0]->at + 15_s);
    CHECK(granted[1]->at < expired[0]->at + 15_s + 2500_ms);  // one retry of 1-2s
    std::size_t for_lock_delay = 0;
    for (const auto* refused : events_of(delayed, trace_kind::lock_refused))
        if (refused->has("reason") && refused->text("reason") == "lock-delay") {
            ++for_lock_delay;
            CHECK(refused->at >= expired[0]->at);
            CHECK(refused->at < granted[1]->at);
        }
    CHECK(for_lock_delay > 0);
    CHECK(design_named(outcome, "lock-delay").metrics.value(Metric::double_charges) == 0);

    // Without it another server is granted within a retry of the session's end, long before
    // server-1 wakes, and charges 42 first.
    const Trace& undelayed = design_named(outcome, "no-lock-delay").trace;
    const auto undelayed_expired = events_of(undelayed, trace_kind::lock_expired);
    const auto undelayed_granted = events_of(undelayed, trace_kind::lock_granted);
    REQUIRE(undelayed_expired.size() == 1);
    REQUIRE(undelayed_granted.size() >= 2);
    CHECK(undelayed_granted[1]->at < undelayed_expired[0]->at + 2500_ms);
    const auto& doubled = design_named(outcome, "no-lock-delay").metrics;
    REQUIRE(doubled.double_charged.size() == 1);
    CHECK(doubled.double_charged[0].customer == 42);

    // The 40s pause outlasts session and lock-delay; the LockIndex fences server-1 out.
    CHECK(design_named(outcome, "pause-40s").metrics.value(Metric::double_charges) == 1);
    CHECK(design_named(outcome, "pause-40s-fenced").metrics.value(Metric::double_charges) == 0);
    CHECK(design_named(outcome, "pause-40s-fenced").metrics.value(Metric::stale_writes_rejected) == 1);
    CHECK(outcome.held());
}
