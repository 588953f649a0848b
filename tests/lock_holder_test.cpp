// models/lock_holder.hpp: what a holder believes about its lease, over one real Redis.
// It renews every ttl/3 while it believes, stops believing when its own clock passes the
// lease's end, when it learns otherwise or when it releases, and writes each change once.
#include <catch2/catch.hpp>

#include "tests/lock_client_fixture.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/lock_client.hpp"
#include "models/lock_holder.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::lock_key;
using locksim::testing::redis_lock;

namespace {

// The job's side of acquiring: the holder's lease lands in `held`.
Task<void> acquire_into(LockHolder& holder, std::shared_ptr<HeldLease>& held) {
    auto acquiring = holder.acquire();
    held = co_await acquiring;
}

// One job server and one Redis node, 1ms apart each way, deployed as a scenario would
// deploy them; the server's holder speaks to Redis through the deployed client.
struct HolderWorld {
    explicit HolderWorld(LockSpec lock = redis_lock(), ClockSettings server_clock = {}) : engine(1), network(engine) {
        server = engine.add_node("server-1", server_clock);
        redis = engine.add_node("redis");
        network.connect(server, redis, DelayModel::fixed(1_ms));
        world.servers = {"server-1"};
        world.store_nodes = {"redis"};
        world.lock = lock;
        deployment = deploy_redis(testing::store_context(engine, network, world));
        client = deployment->client_for(Host(engine, server));
        holder = std::make_unique<LockHolder>(Host(engine, server), *client, world.lock);
    }

    Host host() { return Host(engine, server); }
    // Runs `action` on the server at true time `when` (when its pause ends, if paused then).
    void on_server(Duration when, std::function<void()> action) {
        engine.schedule_at(at(when), server, std::move(action));
    }
    void acquire_at(Duration when) {
        on_server(when, [this] { host().spawn(acquire_into(*holder, held)); });
    }
    void release_at(Duration when) {
        on_server(when, [this] { host().spawn(holder->release(held)); });
    }
    void check_at(Duration when) {
        on_server(when, [this] { checks.push_back(holder->still_believes(*held)); });
    }
    void pause_at(Duration when, Duration length) {
        engine.schedule_at(at(when), no_node, [this, length] { engine.pause(server, length, "gc"); });
    }
    void run(Duration horizon = 60_s) { engine.run(at(horizon)); }

    // The server's renewals, "SET lock:renewals <value> IFEQ <value> PX 30000", as sent.
    std::vector<Instant> renewals_sent() const {
        return sent(fmt::format("SET {0} {1} IFEQ {1} PX", lock_key, value()));
    }
    // Its compare-and-deletes, "DELEX lock:renewals IFEQ <value>", as sent.
    std::vector<Instant> releases_sent() const { return sent(fmt::format("DELEX {} IFEQ {}", lock_key, value())); }
    std::vector<const TraceEvent*> belief_ended() const { return events_of(engine, trace_kind::belief_ended); }

    Engine engine;
    Network network;
    NodeId server;
    NodeId redis;
    WorldSpec world;
    std::unique_ptr<StoreDeployment> deployment;
    std::unique_ptr<LockStoreClient> client;
    std::unique_ptr<LockHolder> holder;
    std::shared_ptr<HeldLease> held;
    std::vector<bool> checks;  // what still_believes answered, in order

private:
    const std::string& value() const { return held->lease.value; }
    std::vector<Instant> sent(const std::string& label_start) const {
        std::vector<Instant> times;
        for (const auto* event : events_of(engine, trace_kind::message_sent))
            if (event->node == server && event->text("label").starts_with(label_start)) times.push_back(event->at);
        return times;
    }
};

}  // namespace

TEST_CASE("acquire returns a believed lease timed on the holder's monotonic clock from when the SET left") {
    HolderWorld world;
    world.acquire_at(1_s);
    world.run(5_s);
    REQUIRE(world.held);
    CHECK(world.held->believed);
    CHECK(world.held->lease.key == lock_key);
    CHECK_FALSE(world.held->lease.token);  // a single Redis hands out none
    CHECK(world.held->lease.valid_until == monotonic(1_s + 30_s));

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at == at(1_s + 1_ms));
    CHECK(granted[0]->text("value") == world.held->lease.value);

    const auto acquired = events_of(world.engine, trace_kind::belief_acquired);
    REQUIRE(acquired.size() == 1);
    CHECK(acquired[0]->node == world.server);
    CHECK(acquired[0]->at == at(1_s + 2_ms));  // the reply's return trip
    CHECK(acquired[0]->text("key") == lock_key);
    CHECK(acquired[0]->instant("believed_until") == monotonic(31_s));
    CHECK(acquired[0]->text("value") == world.held->lease.value);
    CHECK_FALSE(acquired[0]->has("token"));
    CHECK_FALSE(acquired[0]->has("clock"));
    CHECK(world.belief_ended().empty());
}

TEST_CASE("while it believes, the holder renews ttl/3 after each renewal's reply and believes 30s from each send") {
    // Granted at 1.002s; every round is a 10s sleep then a 2ms round trip, so the
    // renewals leave at 11.002s, 21.004s, 31.006s, 41.008s and 51.010s.
    HolderWorld world;
    world.acquire_at(1_s);
    world.run(55_s);
    const std::vector<Instant> expected{at(11_s + 2_ms), at(21_s + 4_ms), at(31_s + 6_ms), at(41_s + 8_ms),
                                        at(51_s + 10_ms)};
    CHECK(world.renewals_sent() == expected);

    const auto renewed = events_of(world.engine, trace_kind::lock_renewed);
    REQUIRE(renewed.size() == expected.size());
    const auto extended = events_of(world.engine, trace_kind::belief_extended);
    REQUIRE(extended.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        INFO("renewal " << i + 1);
        CHECK(renewed[i]->at == expected[i] + 1_ms);
        CHECK(renewed[i]->instant("expires_at") == expected[i] + 1_ms + 30_s);  // Redis's wall clock
        CHECK(extended[i]->at == expected[i] + 2_ms);
        CHECK(extended[i]->instant("believed_until") == monotonic(expected[i] - midnight + 30_s));
    }
    CHECK(world.held->believed);
    CHECK(world.held->lease.valid_until == monotonic(51_s + 10_ms + 30_s));
    // Renewed in time, the key never ran out at the store.
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());
    CHECK(world.belief_ended().empty());
}

TEST_CASE("after a 40s pause past its 30s lease, the holder's next check ends its belief once, and it renews no more") {
    // 1. server-1 acquires at 1s: it believes until 31s on its monotonic clock.
    // 2. A check at 3s believes. A 40s GC pause freezes server-1 from 5s to 45s.
    // 3. The check due at 8s and the renewal due at 11.002s both run when it resumes,
    //    the check first: its clock reads 45s, past 31s, so the belief ends there, and
    //    the renewal finds nothing to renew.
    // 4. A later check finds the belief already ended and records nothing.
    HolderWorld world;
    world.acquire_at(1_s);
    world.check_at(3_s);
    world.pause_at(5_s, 40_s);
    world.check_at(8_s);
    world.check_at(50_s);
    world.run(60_s);
    CHECK(world.checks == std::vector<bool>{true, false, false});

    const auto checked = events_of(world.engine, trace_kind::belief_checked);
    REQUIRE(checked.size() == 1);
    CHECK(checked[0]->at == at(3_s));
    CHECK(checked[0]->instant("believed_until") == monotonic(31_s));

    const auto ended = world.belief_ended();
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == at(45_s));
    CHECK(ended[0]->monotonic == monotonic(45_s));
    CHECK(ended[0]->text("key") == lock_key);
    CHECK(ended[0]->text("reason") == "lease ran out by own clock");
    CHECK_FALSE(world.held->believed);
    CHECK(world.renewals_sent().empty());

    // Redis let the key go by its own clock while the holder was frozen.
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(31_s + 1_ms));
}

TEST_CASE("a holder that does not check after a pause past its lease stops believing when its renewal is refused") {
    // The renewal due at 11.002s runs at 45s, when the 5s-45s pause ends; Redis expired
    // the key at 31.001s, so the compare-and-extend finds no value of ours.
    HolderWorld world;
    world.acquire_at(1_s);
    world.pause_at(5_s, 40_s);
    world.run(60_s);
    CHECK(world.renewals_sent() == std::vector<Instant>{at(45_s)});
    CHECK(events_of(world.engine, trace_kind::lock_renewed).empty());
    CHECK(events_of(world.engine, trace_kind::belief_extended).empty());

    const auto ended = world.belief_ended();
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == at(45_s + 2_ms));
    CHECK(ended[0]->text("reason") == "renewal refused: the value is no longer ours");
    CHECK_FALSE(world.held->believed);
}

TEST_CASE("learned_lost ends the belief with the given reason, stops renewals and leaves the key to expire") {
    HolderWorld world;
    world.acquire_at(1_s);
    world.on_server(5_s,
                    [&world] { world.holder->learned_lost(*world.held, "fenced out: a newer token wrote the row"); });
    world.on_server(6_s, [&world] { world.holder->learned_lost(*world.held, "told twice"); });
    world.check_at(7_s);
    world.run(60_s);
    CHECK(world.checks == std::vector<bool>{false});

    const auto ended = world.belief_ended();
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == at(5_s));
    CHECK(ended[0]->text("reason") == "fenced out: a newer token wrote the row");
    CHECK(events_of(world.engine, trace_kind::belief_checked).empty());
    CHECK(world.renewals_sent().empty());  // the first was due at 11.002s
    // Learning is not releasing: the key stays at Redis until its TTL runs out.
    CHECK(world.releases_sent().empty());
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(31_s + 1_ms));
    CHECK(expired[0]->node_ref("holder") == world.server);
}

TEST_CASE("release ends the belief and deletes the key at the store, and a second release changes nothing") {
    HolderWorld world;
    world.acquire_at(1_s);
    world.release_at(5_s);
    world.release_at(6_s);
    world.check_at(7_s);
    world.run(60_s);
    CHECK(world.checks == std::vector<bool>{false});

    const auto ended = world.belief_ended();
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == at(5_s));
    CHECK(ended[0]->text("reason") == "released");

    // Both compare-and-deletes leave; only the first finds the value to delete.
    CHECK(world.releases_sent() == std::vector<Instant>{at(5_s), at(6_s)});
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(5_s + 1_ms));
    CHECK(released[0]->text("value") == world.held->lease.value);
    CHECK(released[0]->node_ref("holder") == world.server);
    CHECK(released[0]->node_ref("by") == world.server);
    CHECK_FALSE(released[0]->flag("plain"));
    CHECK(world.renewals_sent().empty());
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());
}

TEST_CASE("release after the belief ended for another reason still deletes the key and records no second end") {
    HolderWorld world;
    world.acquire_at(1_s);
    world.on_server(5_s,
                    [&world] { world.holder->learned_lost(*world.held, "fenced out: a newer token wrote the row"); });
    world.release_at(6_s);
    world.run(60_s);

    const auto ended = world.belief_ended();
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->text("reason") == "fenced out: a newer token wrote the row");
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(6_s + 1_ms));
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());
}

TEST_CASE("a holder that times leases on its wall clock keeps believing after its wall clock is stepped back") {
    // server-1's wall clock is an hour ahead. Granted at 1.002s with 29.998s left, the
    // holder believes until its wall clock reads 1h 31s. Stepped back 60s at 10s, that
    // clock reads 1h 40s - 60s = 59min 40s at true 40s: still "before" the deadline,
    // although 39s of the 30s lease have passed (so time leases on the monotonic
    // clock). Without renewal nothing else corrects it.
    LockSpec lock = redis_lock();
    lock.renew = false;
    lock.wall_clock_durations = true;
    HolderWorld world(lock, ClockSettings{.offset = 60_min});
    world.acquire_at(1_s);
    world.engine.schedule_at(at(10_s), no_node, [&world] { world.engine.step_wall_clock(world.server, -60_s); });
    world.check_at(40_s);
    world.run(60_s);
    CHECK(world.checks == std::vector<bool>{true});
    REQUIRE(world.held);
    CHECK(world.held->lease.valid_until == Instant{0} + 60_min + 31_s);

    const auto acquired = events_of(world.engine, trace_kind::belief_acquired);
    REQUIRE(acquired.size() == 1);
    CHECK(acquired[0]->text("clock") == "wall");
    CHECK(acquired[0]->instant("believed_until") == Instant{0} + 60_min + 31_s);
    const auto checked = events_of(world.engine, trace_kind::belief_checked);
    REQUIRE(checked.size() == 1);
    CHECK(checked[0]->at == at(40_s));
    CHECK(checked[0]->wall == Instant{0} + 59_min + 40_s);
    CHECK(world.renewals_sent().empty());
    CHECK(world.belief_ended().empty());
}
