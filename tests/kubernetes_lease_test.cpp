// models/stores/kubernetes_lease_store.hpp and kubernetes_lease_client.hpp: client-go's
// leader election over a Lease. The API server only compares resourceVersions; a
// candidate takes over after lease_duration without a change on its own monotonic
// clock; the leader stops leading when a renewal round fails for renew_deadline; the
// token, leaseTransitions, rises when the holder's identity changes and only then.
#include <catch2/catch.hpp>

#include "tests/lock_client_fixture.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/lock_client.hpp"
#include "models/lock_holder.hpp"
#include "models/stores/kubernetes_lease_client.hpp"
#include "models/stores/kubernetes_lease_store.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

const std::string lease_name = "renewals";

// client-go's core defaults: lease 15 s, renew deadline 10 s, retry period 2 s (the
// loader derives renewals every retry_period and retries every 2 to 4.4 s).
LockSpec kubernetes_lock() {
    LockSpec lock;
    lock.store = StoreKind::kubernetes_lease;
    lock.key = lease_name;
    lock.ttl = 15_s;
    lock.renew_every = 2_s;
    lock.retry = RetrySpec{2_s, 4400_ms};
    lock.request_timeout = 1_s;
    return lock;
}

Task<void> hold_into(LockHolder& holder, std::shared_ptr<HeldLease>& held) {
    auto acquiring = holder.acquire();
    held = co_await acquiring;
}

// The API server and `servers` job servers, every pair 1ms apart, deployed as a scenario
// deploys them: the Lease exists, released, and its next holder gets leaseTransitions 1.
// Each server holds through a LockHolder, which renews as the job's would.
struct KubernetesWorld {
    explicit KubernetesWorld(int servers = 2, std::map<std::string, ClockSettings> clocks = {})
        : engine(1), network(engine) {
        world.store_nodes = {"kube-apiserver"};
        for (int i = 1; i <= servers; ++i) world.servers.push_back(fmt::format("server-{}", i));
        std::vector<std::string> names = world.store_nodes;
        names.insert(names.end(), world.servers.begin(), world.servers.end());
        for (const auto& name : names) engine.add_node(name, clocks[name]);
        for (std::size_t a = 0; a < names.size(); ++a)
            for (std::size_t b = a + 1; b < names.size(); ++b)
                network.connect(node(names[a]), node(names[b]), DelayModel::fixed(1_ms));
        world.lock = kubernetes_lock();
        deployment = deploy_kubernetes_lease(testing::store_context(engine, network, world));
        for (const auto& name : world.servers) {
            clients.push_back(deployment->client_for(Host(engine, node(name))));
            holders.push_back(std::make_unique<LockHolder>(Host(engine, node(name)), *clients.back(), world.lock));
        }
        held.resize(world.servers.size());
    }

    NodeId node(const std::string& name) const { return *engine.trace().find_node(name); }
    NodeId server(int n) const { return node(fmt::format("server-{}", n)); }
    NodeId api_server() const { return node("kube-apiserver"); }
    Host host(int n) { return Host(engine, server(n)); }
    std::size_t index(int n) const { return static_cast<std::size_t>(n - 1); }

    void on_server(int n, Duration when, std::function<void()> action) {
        engine.schedule_at(at(when), server(n), std::move(action));
    }
    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    void hold_from(int n, Duration when) {
        on_server(n, when, [this, n] { host(n).spawn(hold_into(*holders[index(n)], held[index(n)])); });
    }
    void release_at(int n, Duration when) {
        on_server(n, when, [this, n] { host(n).spawn(holders[index(n)]->release(held[index(n)])); });
    }
    // What server n's holder answers at `when`, appended to `answers`.
    void check_at(int n, Duration when, std::vector<bool>& answers) {
        on_server(n, when,
                  [this, n, &answers] { answers.push_back(holders[index(n)]->still_believes(*held[index(n)])); });
    }
    void pause_at(int n, Duration when, Duration length) {
        on_world(when, [this, n, length] { engine.pause(server(n), length, "gc"); });
    }
    // Server n and the API server stop hearing each other from `when` until `heal`.
    void partition(int n, Duration when, Duration heal) {
        on_world(when, [this, n] {
            network.cut(server(n), api_server());
            network.cut(api_server(), server(n));
        });
        on_world(heal, [this, n] {
            network.heal(server(n), api_server());
            network.heal(api_server(), server(n));
        });
    }
    void run(Duration horizon = 90_s) { engine.run(at(horizon)); }

    // The API server's lock.granted (or other) events, only those naming server n as holder.
    std::vector<const TraceEvent*> store_events(std::string_view kind, std::optional<int> holder = {}) const {
        std::vector<const TraceEvent*> found;
        for (const auto* event : events_of(engine.trace(), kind, api_server()))
            if (!holder || event->node_ref("holder") == server(*holder)) found.push_back(event);
        return found;
    }
    std::vector<const TraceEvent*> belief_ended(int n) const {
        return events_of(engine.trace(), trace_kind::belief_ended, server(n));
    }

    Engine engine;
    Network network;
    WorldSpec world;
    std::unique_ptr<StoreDeployment> deployment;
    std::vector<std::unique_ptr<LockStoreClient>> clients;  // clients[0] runs on server-1
    std::vector<std::unique_ptr<LockHolder>> holders;
    std::vector<std::shared_ptr<HeldLease>> held;
};

LeaseRecord record_of(const std::string& holder, std::int64_t transitions) {
    return LeaseRecord{holder, 15, at(0_s), at(0_s), transitions};
}

}  // namespace

TEST_CASE("the API server stores a PUT only over the resourceVersion it has, else answers 409 Conflict") {
    Engine engine(1);
    const NodeId api = engine.add_node("kube-apiserver");
    const NodeId server_1 = engine.add_node("server-1");
    const NodeId server_2 = engine.add_node("server-2");
    KubernetesApiServer server(Host(engine, api));
    std::vector<LeaseReply> replies;
    engine.schedule_at(at(1_s), api, [&] { replies.push_back(server.get(lease_name)); });
    engine.schedule_at(at(2_s), api,
                       [&] { replies.push_back(server.create(lease_name, record_of("server-1", 0), server_1)); });
    engine.schedule_at(at(3_s), api,
                       [&] { replies.push_back(server.create(lease_name, record_of("server-2", 0), server_2)); });
    engine.schedule_at(at(4_s), api, [&] {
        replies.push_back(
            server.update(lease_name, record_of("server-2", 1), replies[1].object.resource_version, server_2));
    });
    engine.schedule_at(at(5_s), api, [&] {
        replies.push_back(
            server.update(lease_name, record_of("server-1", 1), replies[1].object.resource_version, server_1));
    });
    engine.schedule_at(at(6_s), api, [&] { replies.push_back(server.get(lease_name)); });
    engine.run(at(10_s));

    REQUIRE(replies.size() == 6);
    CHECK(replies[0].status == LeaseReply::Status::not_found);
    CHECK(replies[1].status == LeaseReply::Status::ok);        // 201 Created
    CHECK(replies[2].status == LeaseReply::Status::conflict);  // 409 AlreadyExists
    CHECK(replies[3].status == LeaseReply::Status::ok);
    CHECK(replies[3].object.resource_version > replies[1].object.resource_version);
    CHECK(replies[4].status == LeaseReply::Status::conflict);  // it read the object before server-2 wrote it
    CHECK(replies[5].object.spec.holder_identity == "server-2");
    CHECK(replies[5].object.resource_version == replies[3].object.resource_version);

    const auto refused = events_of(engine, trace_kind::lock_refused);
    REQUIRE(refused.size() == 2);
    CHECK(refused[0]->node_ref("client") == server_2);
    CHECK(refused[1]->node_ref("client") == server_1);
}

TEST_CASE(
    "the API server traces a new holder as a grant, the same holder as a renewal, a takeover as the old lease's end") {
    Engine engine(1);
    const NodeId api = engine.add_node("kube-apiserver");
    const NodeId server_1 = engine.add_node("server-1");
    const NodeId server_2 = engine.add_node("server-2");
    KubernetesApiServer server(Host(engine, api));
    std::int64_t version = 0;
    const auto write = [&](Duration when, const LeaseRecord& record, NodeId client) {
        engine.schedule_at(at(when), api, [&, record, client] {
            const LeaseReply reply = version == 0 ? server.create(lease_name, record, client)
                                                  : server.update(lease_name, record, version, client);
            REQUIRE(reply.status == LeaseReply::Status::ok);
            version = reply.object.resource_version;
        });
    };
    write(1_s, record_of("server-1", 0), server_1);
    write(3_s, record_of("server-1", 0), server_1);
    write(20_s, record_of("server-2", 1), server_2);
    write(25_s, record_of("", 1), server_2);
    engine.run(at(30_s));

    const auto granted = events_of(engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 2);
    CHECK(granted[0]->integer("token") == 0);  // a Lease its first holder creates starts at 0
    CHECK(granted[0]->node_ref("holder") == server_1);
    CHECK(granted[0]->duration("ttl") == 15_s);
    CHECK(granted[1]->at == at(20_s));
    CHECK(granted[1]->integer("token") == 1);
    CHECK(granted[1]->node_ref("holder") == server_2);

    const auto renewed = events_of(engine, trace_kind::lock_renewed);
    REQUIRE(renewed.size() == 1);
    CHECK(renewed[0]->integer("token") == 0);
    CHECK(renewed[0]->instant("expires_at") == at(18_s));

    // Nothing expired at 18 s: the API server lets a lease go only when it is overwritten.
    const auto expired = events_of(engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(20_s));
    CHECK(expired[0]->sequence < granted[1]->sequence);
    CHECK(expired[0]->node_ref("holder") == server_1);
    CHECK(expired[0]->integer("token") == 0);
    CHECK(expired[0]->instant("expires_at") == at(18_s));

    const auto released = events_of(engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->node_ref("holder") == server_2);
    CHECK(released[0]->node_ref("by") == server_2);
    CHECK_FALSE(released[0]->flag("plain"));
}

TEST_CASE("the first candidate creates the Lease with leaseTransitions 0 and the other gets 409 AlreadyExists") {
    Engine engine(1);
    Network network(engine);
    const NodeId api = engine.add_node("kube-apiserver");
    const NodeId server_1 = engine.add_node("server-1");
    const NodeId server_2 = engine.add_node("server-2");
    network.connect(api, server_1, DelayModel::fixed(1_ms));
    network.connect(api, server_2, DelayModel::fixed(2_ms));
    KubernetesApiServer server(Host(engine, api));  // no Lease yet
    const LockSpec lock = kubernetes_lock();
    KubernetesLeaseLockClient first(Host(engine, server_1), network, api, server, lock);
    KubernetesLeaseLockClient second(Host(engine, server_2), network, api, server, lock);
    testing::Acquired got_first;
    testing::Acquired got_second;
    Host(engine, server_1).spawn(testing::acquire_after(Host(engine, server_1), first, 1_s, got_first));
    Host(engine, server_2).spawn(testing::acquire_after(Host(engine, server_2), second, 1_s, got_second));
    engine.run(at(10_s));

    REQUIRE(got_first.lease);
    CHECK(got_first.lease->token == 0);
    CHECK(got_first.lease->value == "server-1");
    CHECK(got_first.lease->valid_until == never);  // nothing but a failed renewal round ends it
    CHECK_FALSE(got_second.lease);
    const auto refused = events_of(engine, trace_kind::lock_refused);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->node_ref("client") == server_2);
    const auto sent = events_of(engine, trace_kind::message_sent);
    REQUIRE(sent.size() >= 4);
    CHECK(sent[0]->text("label") == "GET leases/renewals");
}

TEST_CASE("a released Lease is taken at once, and leaseTransitions counts every change of holder") {
    KubernetesWorld world;
    world.hold_from(1, 1_s);
    world.release_at(1, 3_s);
    world.hold_from(2, 4_s);
    world.release_at(2, 6_s);
    world.hold_from(1, 8_s);
    world.run(9_s);

    const auto granted = world.store_events(trace_kind::lock_granted);
    REQUIRE(granted.size() == 3);
    CHECK(granted[0]->at == at(1_s + 3_ms));  // GET there and back, PUT there
    CHECK(granted[0]->integer("token") == 1);
    CHECK(granted[1]->integer("token") == 2);
    CHECK(granted[2]->integer("token") == 3);
    CHECK(granted[2]->node_ref("holder") == world.server(1));
    REQUIRE(world.held[0]);
    CHECK(world.held[0]->lease.token == 3);
    // Renewals keep the count: only the resourceVersion moves.
    for (const auto* renewed : world.store_events(trace_kind::lock_renewed)) CHECK(renewed->integer("token") < 3);
    CHECK(world.store_events(trace_kind::lock_released).size() == 2);
}

TEST_CASE("a candidate takes over only after seeing no change for lease_duration by its own clock") {
    // Server 1 takes the lease and dies; server 2 first sees the record at 1.002 s.
    KubernetesWorld world;
    world.hold_from(1, 0_s);
    world.on_world(500_ms, [&] { world.engine.crash(world.server(1), "crash"); });
    world.hold_from(2, 1_s);
    world.run(40_s);

    const auto granted = world.store_events(trace_kind::lock_granted, 2);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at >= at(1_s + 2_ms + 15_s));
    CHECK(granted[0]->at < at(1_s + 2_ms + 15_s + 4400_ms + 4_ms));  // at its first try after that
    CHECK(granted[0]->integer("token") == 2);
    const auto expired = world.store_events(trace_kind::lock_expired, 1);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == granted[0]->at);
    CHECK(expired[0]->integer("token") == 1);
}

TEST_CASE("a renewing leader keeps the lease however long a candidate polls") {
    KubernetesWorld world;
    world.hold_from(1, 0_s);
    world.hold_from(2, 1_s);
    world.run(80_s);
    CHECK(world.store_events(trace_kind::lock_granted).size() == 1);
    CHECK(world.store_events(trace_kind::lock_renewed, 1).size() >= 35);  // every 2 s
    CHECK_FALSE(world.held[1]);
    CHECK(world.belief_ended(1).empty());
}

TEST_CASE("a wall-clock jump on the candidate changes nothing: the lease is timed on its monotonic clock") {
    KubernetesWorld world;
    world.hold_from(1, 0_s);
    world.on_world(500_ms, [&] { world.engine.crash(world.server(1), "crash"); });
    world.hold_from(2, 1_s);
    world.on_world(5_s, [&] { world.engine.step_wall_clock(world.server(2), hours(1)); });
    world.run(40_s);
    const auto granted = world.store_events(trace_kind::lock_granted, 2);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at >= at(1_s + 2_ms + 15_s));
}

TEST_CASE("a candidate whose clock runs fast judges the lease over early, while the leader still leads") {
    // Server 1 loses the API server at 9 s; its round that began near 10 s gives up near
    // 20 s. Server 2's oscillator runs twice as fast: its 15 s pass in 7.5 s.
    KubernetesWorld world(2, {{"server-2", ClockSettings{0_s, 1'000'000}}});
    world.hold_from(1, 0_s);
    world.hold_from(2, 1_s);
    world.partition(1, 9_s, 80_s);
    world.run(60_s);

    const auto ended = world.belief_ended(1);
    REQUIRE(ended.size() == 1);
    // Every try went unanswered: the leader gave up, nobody refused it.
    CHECK(ended[0]->text("reason") == "renewal failed: none went through within its renew deadline (10s)");
    CHECK(ended[0]->at >= at(20_s));
    CHECK(ended[0]->at < at(20_s + 100_ms));
    const auto granted = world.store_events(trace_kind::lock_granted, 2);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at < ended[0]->at);  // two leaders at once
}

TEST_CASE("with equal clocks the leader stops leading before a candidate may take over") {
    KubernetesWorld world;
    world.hold_from(1, 0_s);
    world.hold_from(2, 1_s);
    world.partition(1, 9_s, 80_s);
    world.run(60_s);

    const auto ended = world.belief_ended(1);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at >= at(20_s));
    CHECK(ended[0]->at < at(20_s + 100_ms));
    const auto granted = world.store_events(trace_kind::lock_granted, 2);
    REQUIRE(granted.size() == 1);
    // It saw the last renewal after 8 s: 15 s later, near 3 s after the leader gave up
    // (lease_duration - renew_deadline - retry_period).
    CHECK(granted[0]->at > ended[0]->at + 2_s);
}

TEST_CASE("a leader paused between rounds wakes still leading and stops only when its next round fails") {
    KubernetesWorld world;
    std::vector<bool> answers;
    world.hold_from(1, 0_s);
    world.hold_from(2, 1_s);
    world.pause_at(1, 5_s, 40_s);
    world.check_at(1, 46_s, answers);
    world.check_at(1, 54_s, answers);
    world.check_at(1, 56_s, answers);
    world.release_at(1, 57_s);
    world.run(70_s);

    const auto granted = world.store_events(trace_kind::lock_granted, 2);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at < at(45_s));
    CHECK(granted[0]->integer("token") == 2);
    CHECK(answers == std::vector<bool>{true, true, false});
    const auto ended = world.belief_ended(1);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at >= at(55_s));  // the round that began at 45 s, 10 s on
    CHECK(ended[0]->at < at(55_s + 100_ms));
    // Its rounds read server 2's record, so its release writes nothing.
    CHECK(world.store_events(trace_kind::lock_released).empty());
}

TEST_CASE("a leader that never saw the takeover clears the new holder's lease when it releases") {
    KubernetesWorld world;
    world.hold_from(1, 0_s);
    world.hold_from(2, 1_s);
    world.partition(1, 5_s, 30_s);
    world.release_at(1, 31_s);
    world.run(40_s);

    const auto granted = world.store_events(trace_kind::lock_granted, 2);
    REQUIRE_FALSE(granted.empty());
    CHECK(granted[0]->at < at(30_s));
    const auto released = world.store_events(trace_kind::lock_released);
    REQUIRE_FALSE(released.empty());
    CHECK(released[0]->at > at(31_s));
    CHECK(released[0]->node_ref("holder") == world.server(2));
    CHECK(released[0]->node_ref("by") == world.server(1));
    CHECK(released[0]->flag("plain"));
}

TEST_CASE("a leader that outlives its lease unchallenged renews it and keeps its leaseTransitions") {
    KubernetesWorld world(1);
    world.hold_from(1, 0_s);
    world.pause_at(1, 5_s, 40_s);
    world.run(60_s);
    CHECK(world.store_events(trace_kind::lock_granted).size() == 1);
    CHECK(world.store_events(trace_kind::lock_expired).empty());
    bool renewed_after_waking = false;
    for (const auto* renewed : world.store_events(trace_kind::lock_renewed, 1)) {
        CHECK(renewed->integer("token") == 1);
        renewed_after_waking = renewed_after_waking || renewed->at > at(45_s);
    }
    CHECK(renewed_after_waking);
    CHECK(world.belief_ended(1).empty());
}
