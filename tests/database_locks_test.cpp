// models/stores/database_locks.hpp and database_lock_clients.cpp: PostgreSQL's session-level
// advisory locks (re-entrant) and SELECT … FOR UPDATE row locks, released when the session
// ends, the two idle timeouts, and clients whose crash closes their connection.
#include <catch2/catch.hpp>

#include "tests/lock_client_fixture.hpp"
#include "tests/support.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/lock_client.hpp"
#include "models/stores/database_locks.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

namespace Catch {
template <>
struct StringMaker<std::optional<bool>> {
    static std::string convert(const std::optional<bool>& reply) {
        return reply ? (*reply ? "t" : "f") : "(no session)";
    }
};
}  // namespace Catch

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::acquire_after;
using locksim::testing::Acquired;

namespace {

const std::string advisory_key = "renewals";
const std::string row = "renewals";

// The billing database and three job servers. Statements run as events on the database
// node, as they would when a request arrives there.
struct DatabaseWorld {
    explicit DatabaseWorld(DatabaseLocks::IdleTimeouts idle_timeouts = {})
        : engine(1),
          database(engine.add_node("billing")),
          server_1(engine.add_node("server-1")),
          server_2(engine.add_node("server-2")),
          server_3(engine.add_node("server-3")),
          locks(Host(engine, database), idle_timeouts) {}

    void on_database(Duration when, std::function<void()> statement) {
        engine.schedule_at(at(when), database, std::move(statement));
    }
    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    void connect_at(Duration when, NodeId client, std::int64_t& session) {
        on_database(when, [this, client, &session] { session = locks.connect(client); });
    }
    void try_lock_at(Duration when, const std::int64_t& session, std::vector<std::optional<bool>>& replies) {
        on_database(when,
                    [this, &session, &replies] { replies.push_back(locks.try_advisory_lock(session, advisory_key)); });
    }
    void unlock_at(Duration when, const std::int64_t& session, std::vector<std::optional<bool>>& replies) {
        on_database(when,
                    [this, &session, &replies] { replies.push_back(locks.advisory_unlock(session, advisory_key)); });
    }
    void run(Duration horizon = 60_min) { engine.run(at(horizon)); }

    Engine engine;
    NodeId database;
    NodeId server_1;
    NodeId server_2;
    NodeId server_3;
    DatabaseLocks locks;
};

using Replies = std::vector<std::optional<bool>>;

// A row lock statement's outcome: which session, whether it got the row, and when.
struct RowLocked {
    std::int64_t session = 0;
    bool locked = false;
    Instant at;
};

Task<void> lock_row_into(Host host, DatabaseLocks& locks, std::int64_t session, std::vector<RowLocked>& outcomes) {
    auto locking = locks.lock_row(session, row);
    const bool locked = co_await locking;
    outcomes.push_back(RowLocked{session, locked, host.engine().now()});
}

// SELECT … FOR UPDATE by `session` at `when`, as a statement waiting on the database.
void lock_row_at(DatabaseWorld& world, Duration when, const std::int64_t& session, std::vector<RowLocked>& outcomes) {
    world.on_database(when, [&world, &session, &outcomes] {
        const Host host(world.engine, world.database);
        host.spawn(lock_row_into(host, world.locks, session, outcomes));
    });
}

}  // namespace

TEST_CASE("pg_try_advisory_lock returns true for a free key and false for a key another session holds") {
    DatabaseWorld world;
    std::int64_t first = 0;
    std::int64_t second = 0;
    world.connect_at(0_s, world.server_1, first);
    world.connect_at(0_s, world.server_2, second);
    Replies replies;
    world.try_lock_at(1_s, first, replies);
    world.try_lock_at(2_s, second, replies);
    world.try_lock_at(3_s, first, replies);  // already ours: counted twice now
    world.run();
    CHECK(first != second);
    CHECK(replies == Replies{true, false, true});

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at == at(1_s));
    CHECK(granted[0]->text("key") == advisory_key);
    CHECK(granted[0]->node_ref("holder") == world.server_1);
    const auto refused = events_of(world.engine, trace_kind::lock_refused);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->at == at(2_s));
    CHECK(refused[0]->node_ref("client") == world.server_2);
}

TEST_CASE("pg_advisory_unlock by a session that does not hold the lock returns false and leaves it held") {
    DatabaseWorld world;
    std::int64_t first = 0;
    std::int64_t second = 0;
    world.connect_at(0_s, world.server_1, first);
    world.connect_at(0_s, world.server_2, second);
    Replies locked;
    Replies unlocked;
    world.try_lock_at(1_s, first, locked);
    world.unlock_at(2_s, second, unlocked);
    world.try_lock_at(3_s, second, locked);
    world.unlock_at(4_s, first, unlocked);
    world.unlock_at(5_s, first, unlocked);  // no longer held
    world.try_lock_at(6_s, second, locked);
    world.run();
    CHECK(unlocked == Replies{false, true, false});
    CHECK(locked == Replies{true, false, true});

    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(4_s));
    CHECK(released[0]->node_ref("holder") == world.server_1);
}

TEST_CASE("ending a session releases its advisory and row locks") {
    DatabaseWorld world;
    std::int64_t first = 0;
    std::int64_t second = 0;
    world.connect_at(0_s, world.server_1, first);
    world.connect_at(0_s, world.server_2, second);
    Replies locked;
    std::vector<RowLocked> rows;
    world.try_lock_at(1_s, first, locked);
    lock_row_at(world, 1_s, first, rows);
    world.try_lock_at(2_s, second, locked);
    lock_row_at(world, 2_s, second, rows);  // waits
    world.on_database(5_s, [&] { world.locks.end_session(first, "connection closed"); });
    world.try_lock_at(6_s, second, locked);
    world.try_lock_at(7_s, first, locked);  // the ended session can run nothing
    std::vector<bool> touched;
    world.on_database(7_s, [&] { touched.push_back(world.locks.touch(first)); });
    world.run();
    CHECK(locked == Replies{true, false, true, std::nullopt});
    CHECK(touched == std::vector<bool>{false});
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].session == first);
    CHECK(rows[1].session == second);
    CHECK(rows[1].locked);
    CHECK(rows[1].at == at(5_s));

    const auto ended = events_of(world.engine, trace_kind::db_session_ended);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == at(5_s));
    CHECK(ended[0]->integer("session") == first);
    CHECK(ended[0]->node_ref("client") == world.server_1);
    CHECK(ended[0]->text("reason") == "connection closed");
    // Both of its locks went with it, traced as having run out rather than released.
    std::vector<std::string> gone;
    for (const auto* event : events_of(world.engine, trace_kind::lock_expired)) {
        CHECK(event->at == at(5_s));
        CHECK(event->node_ref("holder") == world.server_1);
        gone.push_back(std::string(event->text("value")));
    }
    CHECK(gone == std::vector<std::string>{"advisory", "FOR UPDATE"});
    CHECK(events_of(world.engine, trace_kind::lock_released).empty());
}

TEST_CASE("SELECT FOR UPDATE blocks a second session until the holder commits") {
    DatabaseWorld world;
    std::int64_t first = 0;
    std::int64_t second = 0;
    world.connect_at(0_s, world.server_1, first);
    world.connect_at(0_s, world.server_2, second);
    std::vector<RowLocked> rows;
    std::vector<bool> commits;
    lock_row_at(world, 1_s, first, rows);
    lock_row_at(world, 2_s, second, rows);
    world.on_database(5_s, [&] { commits.push_back(world.locks.commit(first)); });
    world.run();
    CHECK(commits == std::vector<bool>{true});
    REQUIRE(rows.size() == 2);
    CHECK(rows[0].session == first);
    CHECK(rows[0].at == at(1_s));
    CHECK(rows[1].session == second);
    CHECK(rows[1].locked);
    CHECK(rows[1].at == at(5_s));

    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(5_s));
    CHECK(released[0]->text("value") == "FOR UPDATE");
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 2);
    CHECK(granted[1]->node_ref("holder") == world.server_2);
    CHECK(granted[1]->sequence > released[0]->sequence);
}

TEST_CASE("sessions blocked on a row lock get it in the order they started waiting") {
    DatabaseWorld world;
    std::int64_t sessions[4] = {};
    for (auto& session : sessions) world.connect_at(0_s, world.server_1, session);
    std::vector<RowLocked> rows;
    lock_row_at(world, 1_s, sessions[0], rows);
    lock_row_at(world, 2_s, sessions[1], rows);
    lock_row_at(world, 3_s, sessions[2], rows);
    lock_row_at(world, 2_s + 500_ms, sessions[3], rows);
    // Whoever holds the row commits at 10s, 11s and 12s.
    for (const Duration when : {10_s, 11_s, 12_s})
        world.on_database(when, [&] {
            REQUIRE_FALSE(rows.empty());
            world.locks.commit(rows.back().session);
        });
    world.run();
    REQUIRE(rows.size() == 4);
    CHECK(rows[1].session == sessions[1]);
    CHECK(rows[1].at == at(10_s));
    CHECK(rows[2].session == sessions[3]);
    CHECK(rows[2].at == at(11_s));
    CHECK(rows[3].session == sessions[2]);
    CHECK(rows[3].at == at(12_s));
}

TEST_CASE("a session asking for a row in the instant it is committed queues behind the sessions already waiting") {
    // PostgreSQL queues a new request that conflicts with a waiting one behind it; a
    // statement that arrives as the holder commits must not overtake the waiter.
    DatabaseWorld world;
    std::int64_t first = 0;
    std::int64_t waiter = 0;
    std::int64_t latecomer = 0;
    world.connect_at(0_s, world.server_1, first);
    world.connect_at(0_s, world.server_2, waiter);
    world.connect_at(0_s, world.server_3, latecomer);
    std::vector<RowLocked> rows;
    lock_row_at(world, 1_s, first, rows);
    lock_row_at(world, 2_s, waiter, rows);
    world.on_database(5_s, [&] { world.locks.commit(first); });
    lock_row_at(world, 5_s, latecomer, rows);
    world.on_database(6_s, [&] {
        REQUIRE(rows.size() == 2);
        world.locks.commit(rows.back().session);
    });
    world.run();
    REQUIRE(rows.size() == 3);
    CHECK(rows[1].session == waiter);
    CHECK(rows[1].at == at(5_s));
    CHECK(rows[2].session == latecomer);
    CHECK(rows[2].at == at(6_s));
}

TEST_CASE("the idle session timeout ends a session with no activity, and touch refreshes it") {
    DatabaseWorld world({.session = 10_s});
    std::int64_t idle = 0;
    std::int64_t busy = 0;
    world.connect_at(0_s, world.server_1, idle);
    world.connect_at(0_s, world.server_2, busy);
    Replies locked;
    world.try_lock_at(1_s, idle, locked);
    std::vector<bool> touched;
    for (const Duration when : {8_s, 16_s, 23_s})
        world.on_database(when, [&] { touched.push_back(world.locks.touch(busy)); });
    world.try_lock_at(12_s, busy, locked);  // the idle session's lock went with it
    world.on_database(40_s, [&] { touched.push_back(world.locks.touch(busy)); });
    world.run();
    CHECK(locked == Replies{true, true});
    CHECK(touched == std::vector<bool>{true, true, true, false});

    const auto ended = events_of(world.engine, trace_kind::db_session_ended);
    REQUIRE(ended.size() == 2);
    CHECK(ended[0]->integer("session") == idle);
    CHECK(ended[0]->text("reason") == "idle timeout");
    CHECK(ended[0]->at == at(11_s));  // 10s after its last statement at 1s
    CHECK(ended[1]->integer("session") == busy);
    CHECK(ended[1]->at == at(33_s));  // 10s after the touch at 23s
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 2);
    CHECK(expired[0]->at == at(11_s));
    CHECK(expired[0]->node_ref("holder") == world.server_1);
}

TEST_CASE("a session waiting in the row lock queue is not idle") {
    // PostgreSQL's idle timeouts apply to a session waiting for its client's next
    // statement, not to one whose statement is waiting for a lock.
    DatabaseWorld world({.session = 10_s, .in_transaction = 10_s});
    std::int64_t holder = 0;
    std::int64_t waiter = 0;
    world.connect_at(0_s, world.server_1, holder);
    world.connect_at(0_s, world.server_2, waiter);
    std::vector<RowLocked> rows;
    lock_row_at(world, 1_s, holder, rows);
    lock_row_at(world, 2_s, waiter, rows);
    for (const Duration when : {5_s, 10_s, 15_s, 20_s, 25_s})
        world.on_database(when, [&] { world.locks.touch(holder); });  // the holder keeps working
    world.on_database(30_s, [&] { world.locks.commit(holder); });
    world.run(31_s);
    REQUIRE(rows.size() == 2);
    CHECK(rows[1].session == waiter);
    CHECK(rows[1].locked);
    CHECK(rows[1].at == at(30_s));
    CHECK(events_of(world.engine, trace_kind::db_session_ended).empty());
}

TEST_CASE("a database restart ends every session and frees every lock") {
    // Sessions and their locks live in the server's memory: a crash ends them all.
    DatabaseWorld world;
    std::int64_t before = 0;
    std::int64_t after = 0;
    world.connect_at(0_s, world.server_1, before);
    Replies locked;
    world.try_lock_at(1_s, before, locked);
    world.on_world(2_s, [&] { world.engine.crash(world.database, "test"); });
    world.on_world(3_s, [&] { world.engine.restart(world.database); });
    // Scheduled as world events: anything queued on the node before the crash is lost with it.
    world.on_world(4_s, [&] { after = world.locks.connect(world.server_2); });
    world.on_world(5_s, [&] { locked.push_back(world.locks.try_advisory_lock(after, advisory_key)); });
    world.on_world(6_s, [&] { locked.push_back(world.locks.try_advisory_lock(before, advisory_key)); });
    world.run();
    CHECK(locked == Replies{true, true, std::nullopt});
}

namespace {

// Two job servers using the database's own lock through the deployed clients.
struct ClientWorld {
    explicit ClientWorld(StoreKind store, TcpKeepalives keepalives = {}) : engine(1), network(engine) {
        database = engine.add_node("billing");
        server_1 = engine.add_node("server-1");
        server_2 = engine.add_node("server-2");
        network.connect(database, server_1, DelayModel::fixed(1_ms));
        network.connect(database, server_2, DelayModel::fixed(1_ms));
        network.connect(server_1, server_2, DelayModel::fixed(1_ms));
        world.servers = {"server-1", "server-2"};
        world.billing_node = "billing";
        world.lock.store = store;
        world.lock.key = advisory_key;
        world.lock.ttl = 30_s;
        world.lock.retry = RetrySpec{100_ms, 200_ms};
        world.lock.request_timeout = 1_s;
        world.lock.tcp_keepalives = keepalives;
        deployment = deploy_store(testing::store_context(engine, network, world));
        client_1 = deployment->client_for(Host(engine, server_1));
        client_2 = deployment->client_for(Host(engine, server_2));
    }

    Engine engine;
    Network network;
    NodeId database;
    NodeId server_1;
    NodeId server_2;
    WorldSpec world;
    std::unique_ptr<StoreDeployment> deployment;
    std::unique_ptr<LockStoreClient> client_1;
    std::unique_ptr<LockStoreClient> client_2;
};

}  // namespace

TEST_CASE("a client crash closes its connection and the database ends its session and frees its lock") {
    const StoreKind store = GENERATE(StoreKind::db_advisory, StoreKind::db_for_update);
    INFO((store == StoreKind::db_advisory ? "advisory" : "for update"));
    ClientWorld world(store);
    Acquired first;
    Acquired second;
    Host(world.engine, world.server_1)
        .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 1_s, first));
    Host(world.engine, world.server_2)
        .spawn(acquire_after(Host(world.engine, world.server_2), *world.client_2, 2_s, second));
    world.engine.schedule_at(at(5_s), no_node, [&] { world.engine.crash(world.server_1, "test"); });
    world.engine.run(at(60_s));
    REQUIRE(first.lease);
    CHECK_FALSE(first.lease->token);
    REQUIRE(second.lease);

    const auto ended = events_of(world.engine, trace_kind::db_session_ended);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->node == world.database);
    CHECK(ended[0]->at == at(5_s + 1_ms));  // the closed socket's one-way trip
    CHECK(ended[0]->node_ref("client") == world.server_1);
    CHECK(ended[0]->text("reason") == "connection closed");
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->node_ref("holder") == world.server_1);
    CHECK(expired[0]->at == ended[0]->at);

    CHECK(second.got_at > ended[0]->at);
    CHECK(second.got_at < ended[0]->at + 300_ms);
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 2);
    CHECK(granted[1]->node_ref("holder") == world.server_2);
}

// Linux counts a connection's idleness from the last segment it received
// (keepalive_time_elapsed(), include/net/tcp.h): while the client lived, its kernel answered
// a probe after each `idle` of silence; once it is dead, `count` probes `interval` apart go
// unanswered and the connection is reset (tcp_keepalive_timer(), net/ipv4/tcp_timer.c).
TEST_CASE("TCP keepalive gives up on a dead machine counting from the last packet received, not from the crash") {
    const StoreKind store = GENERATE(StoreKind::db_advisory, StoreKind::db_for_update);
    INFO((store == StoreKind::db_advisory ? "advisory" : "for update"));
    const TcpKeepalives keepalives{60_s, 10_s, 3};
    // The session opens at 1.001 s and the lock statement arrives at 1.003 s; nothing more
    // is sent on it.
    const Instant heard = at(1_s + 3_ms);
    struct Case {
        Duration crash;
        Instant reset;
    };
    const Case crash = GENERATE_COPY(
        // Dead 4 s after its last statement: 60 s of silence, then 3 probes 10 s apart.
        Case{5_s, heard + 90_s},
        // Alive and idle for 149 s: it answered the probes at 61.003 s and 121.003 s.
        Case{150_s, heard + 120_s + 90_s},
        // Dead at the very moment a probe falls due: that probe goes unanswered.
        Case{61_s + 3_ms, heard + 90_s});
    INFO("crash at " << crash.crash.ns << " ns");
    ClientWorld world(store, keepalives);
    Acquired first;
    Host(world.engine, world.server_1)
        .spawn(acquire_after(Host(world.engine, world.server_1), *world.client_1, 1_s, first));
    world.engine.schedule_at(at(crash.crash), no_node,
                             [&] { world.engine.crash(world.server_1, "test", CrashKind::machine); });
    world.engine.run(at(10_min));
    REQUIRE(first.lease);

    const auto ended = events_of(world.engine, trace_kind::db_session_ended);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == crash.reset);
    CHECK(ended[0]->text("reason") == "TCP keepalive gave up on a dead machine");
    CHECK(keepalives.gives_up_at(heard, at(crash.crash)) == crash.reset);
}

TEST_CASE("an advisory lock taken twice by one session is freed only by its second unlock") {
    // PostgreSQL counts a session's advisory locks (fidelity case postgres-advisory-reentrant).
    DatabaseWorld world;
    std::int64_t holder = 0;
    std::int64_t other = 0;
    world.connect_at(0_s, world.server_1, holder);
    world.connect_at(0_s, world.server_2, other);
    Replies holder_says;
    Replies other_says;
    world.try_lock_at(1_s, holder, holder_says);
    world.try_lock_at(2_s, holder, holder_says);
    world.unlock_at(3_s, holder, holder_says);
    world.try_lock_at(4_s, other, other_says);  // still held: one unlock of two
    world.unlock_at(5_s, holder, holder_says);
    world.try_lock_at(6_s, other, other_says);
    world.unlock_at(7_s, holder, holder_says);  // not held any more
    world.run();
    CHECK(holder_says == Replies{true, true, true, true, false});
    CHECK(other_says == Replies{false, true});
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(5_s));
}

TEST_CASE("idle_session_timeout spares a FOR UPDATE holder inside its transaction and ends it once committed") {
    DatabaseWorld world({.session = 10_s});
    std::int64_t holder = 0;
    world.connect_at(0_s, world.server_1, holder);
    std::vector<RowLocked> rows;
    lock_row_at(world, 1_s, holder, rows);
    world.on_database(40_s, [&] { world.locks.commit(holder); });  // 39 s idle in the transaction
    world.run();
    REQUIRE(rows.size() == 1);
    CHECK(rows[0].locked);
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(40_s));
    const auto ended = events_of(world.engine, trace_kind::db_session_ended);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->text("reason") == "idle timeout");
    CHECK(ended[0]->at == at(50_s));  // idle outside a transaction from the COMMIT
}

TEST_CASE("idle_in_transaction_timeout ends a FOR UPDATE holder idle in its transaction, not an advisory holder") {
    DatabaseWorld world({.in_transaction = 10_s});
    std::int64_t row_holder = 0;
    std::int64_t advisory_holder = 0;
    world.connect_at(0_s, world.server_1, row_holder);
    world.connect_at(0_s, world.server_2, advisory_holder);
    std::vector<RowLocked> rows;
    lock_row_at(world, 1_s, row_holder, rows);
    Replies locked;
    world.try_lock_at(1_s, advisory_holder, locked);
    world.run(60_s);
    REQUIRE(rows.size() == 1);
    CHECK(locked == Replies{true});
    const auto ended = events_of(world.engine, trace_kind::db_session_ended);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->integer("session") == row_holder);
    CHECK(ended[0]->text("reason") == "idle-in-transaction timeout");
    CHECK(ended[0]->at == at(11_s));
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->text("value") == "FOR UPDATE");
}

TEST_CASE("a step back of the database's wall clock postpones an idle timeout, and a step forward does not hasten it") {
    // PostgreSQL's timeout.c checks its deadline on the wall clock when the timer fires.
    const Duration step = GENERATE(-60_s, 60_s);
    INFO("step " << step.ns / 1'000'000'000 << "s");
    DatabaseWorld world({.session = 10_s});
    std::int64_t holder = 0;
    world.connect_at(0_s, world.server_1, holder);
    Replies locked;
    world.try_lock_at(1_s, holder, locked);
    world.on_world(2_s, [&] { world.engine.step_wall_clock(world.database, step); });
    world.run();
    const auto ended = events_of(world.engine, trace_kind::db_session_ended);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == at(step.ns < 0 ? 71_s : 11_s));
}
