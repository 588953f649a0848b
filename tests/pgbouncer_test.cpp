// PgBouncer in transaction mode in front of the advisory lock (models/stores/transaction_pool.hpp):
// the pool as PgBouncer 1.18 keeps it, each rule with the function of PgBouncer's source it
// follows; then the shipped scenario, where every client's statements run on sessions the
// pool lends, so the lock stays with a shared session.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <optional>
#include <string>
#include <vector>

#include "models/stores/database_locks.hpp"
#include "models/stores/transaction_pool.hpp"
#include "models/trace_kinds.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

// The database, PgBouncer beside it, and two clients; each transaction is a statement run
// as an event on the database node, as a request arriving there would be.
struct PoolWorld {
    explicit PoolWorld(PoolerSpec spec, DatabaseLocks::IdleTimeouts idle_timeouts = {})
        : engine(1),
          database(engine.add_node("billing")),
          client_a(engine.add_node("server-1")),
          client_b(engine.add_node("server-2")),
          locks(Host(engine, database), idle_timeouts),
          pool(Host(engine, database), locks, spec) {}

    // At `when`, one transaction of `client`: pg_try_advisory_lock on the session it is lent.
    void try_lock_at(Duration when, NodeId client) {
        engine.schedule_at(at(when), database, [this, client] {
            pool.run(client, [this](std::int64_t session) {
                sessions.push_back(session);
                replies.push_back(locks.try_advisory_lock(session, "renewals"));
                return 0;
            });
        });
    }
    void run() { engine.run(at(10_min)); }

    Engine engine;
    NodeId database;
    NodeId client_a;
    NodeId client_b;
    DatabaseLocks locks;
    TransactionPool pool;
    std::vector<std::int64_t> sessions;        // the session each transaction ran on
    std::vector<std::optional<bool>> replies;  // what pg_try_advisory_lock answered
};

PoolerSpec pool_settings(int pool_size, int min_pool_size, bool round_robin) {
    PoolerSpec spec;
    spec.pool_size = pool_size;
    spec.min_pool_size = min_pool_size;
    spec.server_round_robin = round_robin;
    return spec;
}

ScenarioOutcome pgbouncer_scenario() {
    return run_scenario(load_scenario_file(scenario_path("db-advisory-pgbouncer.json"), metric_names()), 1);
}

// The replies the database sent, in order, that name a server session.
std::vector<std::string> session_replies(const Trace& trace) {
    std::vector<std::string> replies;
    for (const auto& event : trace.events())
        if (event.kind == trace_kind::message_sent && event.text("label").find("(server session") != std::string::npos)
            replies.push_back(std::string(event.text("label")));
    return replies;
}

}  // namespace

// find_server() (src/objects.c) takes the first socket of the idle list and calls
// launch_new_connection() only when it is empty; server_round_robin changes where
// release_server() puts a connection back, not whether one is opened.
TEST_CASE("pgbouncer: one idle server session serves the next client, whether lending is LIFO or round robin") {
    for (const bool round_robin : {false, true}) {
        INFO("server_round_robin " << round_robin);
        PoolWorld world(pool_settings(20, 0, round_robin));
        world.try_lock_at(1_ms, world.client_a);
        world.try_lock_at(500_ms, world.client_b);
        world.run();
        REQUIRE(world.sessions.size() == 2);
        CHECK(world.sessions[0] == world.sessions[1]);
        CHECK(world.replies == std::vector<std::optional<bool>>{true, true});  // re-entrant on the lent session
        CHECK(events_of(world.engine, trace_kind::pooler_lent).size() == 2);
    }
}

// check_pool_size() (src/janitor.c) opens connections up to min_pool_size (and never past
// default_pool_size); a new connection joins the idle list as a released one does:
// change_server_state(SV_IDLE) (src/objects.c) prepends it (LIFO), or appends it with
// server_round_robin.
TEST_CASE("pgbouncer: with min_pool_size open, LIFO lends the session released last and round robin the other") {
    PoolWorld lifo(pool_settings(5, 2, false));
    lifo.try_lock_at(1_ms, lifo.client_a);
    lifo.try_lock_at(2_ms, lifo.client_b);
    lifo.try_lock_at(3_ms, lifo.client_b);
    lifo.run();
    CHECK(lifo.sessions == std::vector<std::int64_t>{2, 2, 2});  // the second opened heads the list
    CHECK(lifo.replies == std::vector<std::optional<bool>>{true, true, true});

    PoolWorld round_robin(pool_settings(5, 2, true));
    round_robin.try_lock_at(1_ms, round_robin.client_a);
    round_robin.try_lock_at(2_ms, round_robin.client_b);
    round_robin.try_lock_at(3_ms, round_robin.client_b);
    round_robin.run();
    CHECK(round_robin.sessions == std::vector<std::int64_t>{1, 2, 1});
    CHECK(round_robin.replies == std::vector<std::optional<bool>>{true, false, true});
}

TEST_CASE("pgbouncer: min_pool_size opens no more than default_pool_size connections") {
    PoolWorld world(pool_settings(2, 5, true));
    for (int i = 1; i <= 4; ++i) world.try_lock_at(Duration{i * 1'000'000}, world.client_a);
    world.run();
    CHECK(world.sessions == std::vector<std::int64_t>{1, 2, 1, 2});
}

// A server connection the database closed is disconnected at once (server_proto() in
// src/server.c, SBUF_EV_RECV_FAILED), so the next transaction gets a new one; the lock the
// old session held went with it.
TEST_CASE("pgbouncer: a session the database ended for idleness leaves the pool, and the next client gets a new one") {
    PoolWorld world(pool_settings(20, 0, false), {.session = 1_s, .in_transaction = std::nullopt});
    world.try_lock_at(1_ms, world.client_a);
    world.try_lock_at(5_s, world.client_b);
    world.run();
    REQUIRE(world.sessions.size() == 2);
    CHECK(world.sessions[0] != world.sessions[1]);
    CHECK(world.replies == std::vector<std::optional<bool>>{true, true});
    const auto ended = events_of(world.engine, trace_kind::db_session_ended);
    REQUIRE_FALSE(ended.empty());
    CHECK(ended.front()->integer("session") == world.sessions[0]);
    CHECK(ended.front()->at < at(5_s));
}

TEST_CASE("pgbouncer: the second server is lent the holding session and granted the lock again, LIFO or round robin") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    for (const std::string name : {"pgbouncer-transaction-mode", "pgbouncer-round-robin"}) {
        INFO(name);
        const auto& design = design_named(outcome, name);
        std::vector<std::string> grants;
        for (const auto& event : design.trace.events())
            if (event.kind == trace_kind::lock_granted)
                grants.push_back(design.trace.node_name(event.node_ref("holder")) + " " +
                                 std::string(event.text("value")));
        REQUIRE(grants.size() == 2);
        CHECK(grants[0] == "server-1 advisory");
        CHECK(grants[1] == "server-2 advisory, again on session 1");
        CHECK(design.metrics.value(Metric::lock_refusals) == 0);
        CHECK(design.metrics.overlaps.size() == 1);
        for (const auto& reply : session_replies(design.trace))
            CHECK(reply.find("(server session 1)") != std::string::npos);
    }
}

TEST_CASE(
    "pgbouncer: with two sessions kept open, round robin refuses once, then lends the holder's session, and an unlock "
    "lands elsewhere") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    const auto& design = design_named(outcome, "pgbouncer-round-robin-two-open");
    const auto replies = session_replies(design.trace);
    REQUIRE(replies.size() == 5);  // server-1's try, server-2's two, two unlocks
    CHECK(replies[0] == "t (server session 1)");
    CHECK(replies[1] == "f (server session 2)");
    CHECK(replies[2] == "t (server session 1)");
    // One unlock on each session: the one on session 2 unlocks nothing, and the lock,
    // taken twice on session 1, is still held there when both jobs have ended.
    CHECK(replies[3] == "f (server session 2)");
    CHECK(replies[4] == "t (server session 1)");
    for (const auto& event : design.trace.events()) CHECK(event.kind != trace_kind::lock_released);
}

TEST_CASE("pgbouncer: direct connections keep the lock with its client") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    const auto& design = design_named(outcome, "direct");
    CHECK(design.metrics.overlaps.empty());
    CHECK(design.metrics.value(Metric::double_charges) == 0);
    CHECK(session_replies(design.trace).empty());
}

TEST_CASE("pgbouncer: the loader takes a transaction-mode pooler for advisory locks only") {
    const std::string world = R"({"name": "x", "description": "d", "seed": 1, "horizon": "1m",
      "servers": ["server-1"], "network": {"delay": "1ms"},
      "job": {"name": "renewals", "at": "00:00", "customers": [1], "period": "p", "work_per_customer": "1s"},
      "designs": {"d": {}}, "lock": )";
    CHECK(error_of(world + R"({"store": "db-advisory", "key": "k", "pooler": {"mode": "transaction"}}})") ==
          "no error");
    CHECK(error_of(world + R"({"store": "db-advisory", "key": "k", "pooler": {"min_pool_size": 1000}}})") ==
          "no error");
    CHECK(says(error_of(world + R"({"store": "db-for-update", "key": "k", "pooler": {}}})"), "/lock/pooler"));
    CHECK(says(error_of(world + R"({"store": "db-advisory", "key": "k", "pooler": {"mode": "session"}}})"),
               "/lock/pooler/mode: expected \"transaction\""));
    CHECK(says(error_of(world + R"({"store": "db-advisory", "key": "k", "pooler": {"pool_size": 0}}})"),
               "/lock/pooler/pool_size"));
    CHECK(says(error_of(world + R"({"store": "db-advisory", "key": "k", "pooler": {"min_pool_size": -1}}})"),
               "/lock/pooler/min_pool_size: expected a number from 0 to 1000"));
}
