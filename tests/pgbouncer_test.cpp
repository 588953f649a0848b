// PgBouncer in transaction mode in front of the advisory lock (models/stores/pgbouncer.hpp),
// on a node of its own: the pool as PgBouncer 1.18 keeps it, each rule with the function of
// PgBouncer's source it follows; then the shipped scenario, where every client's statements
// run on connections the pooler lends, so the lock stays with a shared session.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <optional>
#include <string>
#include <vector>

#include "models/statement_relay.hpp"
#include "models/stores/database_locks.hpp"
#include "models/stores/pgbouncer.hpp"
#include "models/trace_kinds.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

// The database, PgBouncer on a node of its own, and two clients, 1 ms apart: a statement
// holds its server connection for the round trip between the pooler and the database.
struct PoolWorld {
    explicit PoolWorld(PoolerSpec spec, DatabaseLocks::IdleTimeouts idle_timeouts = {})
        : engine(1),
          database(engine.add_node("billing")),
          pooler_node(engine.add_node("pgbouncer")),
          client_a(engine.add_node("server-1")),
          client_b(engine.add_node("server-2")),
          network(engine),
          locks(Host(engine, database), idle_timeouts),
          pooler(Host(engine, pooler_node), network, database, locks, spec, TcpKeepalives{}) {
        network.link_every_pair(DelayModel::fixed(1_ms));
    }

    // At `when`, one transaction of `client`: pg_try_advisory_lock on the session it is lent.
    void try_lock_at(Duration when, NodeId client) {
        engine.schedule_at(at(when), client, [this, client] { engine.spawn(client, try_lock(client)); });
    }
    Task<void> try_lock(NodeId client) {
        auto request = call_through<std::optional<bool>>(
            network, Host(engine, client), pooler, "SELECT pg_try_advisory_lock(hashtext('renewals'))",
            [this](std::int64_t session) {
                sessions.push_back(session);
                const auto taken = locks.try_advisory_lock(session, "renewals");
                replies.push_back(taken);
                return Answer<std::optional<bool>>{taken, "t"};
            },
            Answer<std::optional<bool>>{std::nullopt, "ERROR: server conn crashed?"}, std::nullopt);
        answers.push_back(co_await request);
        answered_at.push_back(engine.now());
    }
    void run(Duration horizon = 10_min) { engine.run(at(horizon)); }

    Engine engine;
    NodeId database;
    NodeId pooler_node;
    NodeId client_a;
    NodeId client_b;
    Network network;
    DatabaseLocks locks;
    PgBouncer pooler;
    std::vector<std::int64_t> sessions;                       // the session each transaction ran on
    std::vector<std::optional<bool>> replies;                 // what pg_try_advisory_lock answered at the database
    std::vector<std::optional<std::optional<bool>>> answers;  // what each client got back
    std::vector<Instant> answered_at;
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

// The replies that name a server session, in the order the pooler sent them on.
std::vector<std::string> session_replies(const Trace& trace) {
    std::vector<std::string> replies;
    for (const auto& event : trace.events())
        if (event.kind == trace_kind::message_sent && trace.node_name(event.node) == "pgbouncer" &&
            event.text("label").find("(server session") != std::string::npos)
            replies.push_back(std::string(event.text("label")));
    return replies;
}

std::vector<std::string> grants_in(const DesignOutcome& design) {
    std::vector<std::string> grants;
    for (const auto& event : design.trace.events())
        if (event.kind == trace_kind::lock_granted)
            grants.push_back(design.trace.node_name(event.node_ref("holder")) + " " + std::string(event.text("value")));
    return grants;
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
    // The first client's statement runs on the first connection opened, while the janitor
    // opens the second; the first comes back last, so LIFO lends it next.
    PoolWorld lifo(pool_settings(5, 2, false));
    lifo.try_lock_at(1_s, lifo.client_a);
    lifo.try_lock_at(2_s, lifo.client_b);
    lifo.try_lock_at(3_s, lifo.client_b);
    lifo.run();
    CHECK(lifo.sessions == std::vector<std::int64_t>{1, 1, 1});
    CHECK(lifo.replies == std::vector<std::optional<bool>>{true, true, true});
    CHECK(events_of(lifo.engine, trace_kind::db_session_ended).empty());  // both stay open

    PoolWorld round_robin(pool_settings(5, 2, true));
    round_robin.try_lock_at(1_s, round_robin.client_a);
    round_robin.try_lock_at(2_s, round_robin.client_b);
    round_robin.try_lock_at(3_s, round_robin.client_b);
    round_robin.run();
    CHECK(round_robin.sessions == std::vector<std::int64_t>{1, 2, 1});
    CHECK(round_robin.replies == std::vector<std::optional<bool>>{true, false, true});
}

TEST_CASE("pgbouncer: min_pool_size opens no more than default_pool_size connections") {
    PoolWorld world(pool_settings(2, 5, true));
    for (int i = 1; i <= 4; ++i) world.try_lock_at(1_s * i, world.client_a);
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

// find_server() lends an idle connection only; a statement on its way holds its
// connection, so a second client asking at the same moment gets a new one
// (launch_new_connection()), or waits in line (cl_waiting) when the pool is full.
TEST_CASE("pgbouncer: statements that overlap are lent different connections, and a full pool makes a client wait") {
    PoolWorld roomy(pool_settings(5, 0, false));
    roomy.try_lock_at(1_ms, roomy.client_a);
    roomy.try_lock_at(1_ms, roomy.client_b);
    roomy.run();
    CHECK(roomy.sessions == std::vector<std::int64_t>{1, 2});
    CHECK(roomy.replies == std::vector<std::optional<bool>>{true, false});  // the lock is on session 1

    PoolWorld full(pool_settings(1, 0, false));
    full.try_lock_at(1_ms, full.client_a);
    full.try_lock_at(1_ms, full.client_b);
    full.run();
    CHECK(full.sessions == std::vector<std::int64_t>{1, 1});
    CHECK(full.replies == std::vector<std::optional<bool>>{true, true});  // re-entrant: server-2 holds it too
    REQUIRE(full.answered_at.size() == 2);
    // The second waited for the first's round trip to the database: 2 ms more.
    CHECK(full.answered_at[1] - full.answered_at[0] == 2_ms);
}

// check_unused_servers() (src/janitor.c): a connection idle past server_idle_timeout is
// closed at the janitor's next round (a third of a second), and the database ends its
// session: the session lock on it goes.
TEST_CASE("pgbouncer: server_idle_timeout closes an idle connection, and the session lock on it goes") {
    PoolerSpec spec = pool_settings(5, 0, false);
    spec.server_idle_timeout = 10_s;
    PoolWorld world(spec);
    world.try_lock_at(1_s, world.client_a);
    world.run(1_min);
    const auto closed = events_of(world.engine, trace_kind::pooler_closed);
    REQUIRE(closed.size() == 1);
    CHECK(closed.front()->text("reason") == "server idle timeout");
    CHECK(closed.front()->at > at(11_s));
    CHECK(closed.front()->at < at(11_s + 400_ms));
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired.front()->at == closed.front()->at + 1_ms);  // the Terminate's way to the database
}

// release_server() and check_unused_servers(): a connection older than server_lifetime is
// closed, and the next statement opens a new one.
TEST_CASE("pgbouncer: server_lifetime closes a connection past its age, and the next client gets a new one") {
    PoolerSpec spec = pool_settings(5, 0, false);
    spec.server_lifetime = 5_s;
    PoolWorld world(spec);
    world.try_lock_at(1_s, world.client_a);
    world.try_lock_at(8_s, world.client_b);
    world.run(1_min);
    CHECK(world.sessions == std::vector<std::int64_t>{1, 2});
    CHECK(world.replies == std::vector<std::optional<bool>>{true, true});  // the lock went with session 1
    const auto closed = events_of(world.engine, trace_kind::pooler_closed);
    REQUIRE_FALSE(closed.empty());
    CHECK(closed.front()->text("reason") == "server lifetime over");
    CHECK(closed.front()->at < at(8_s));
}

// A crashed process's sockets are closed by its kernel: the database sees each of
// PgBouncer's connections close and ends its session. A crashed machine closes nothing:
// the sessions wait for the database's TCP keepalive (2 h 11 min 15 s by default).
TEST_CASE("pgbouncer: its process's crash ends every session it had open and their locks, its machine's does not") {
    for (const CrashKind kind : {CrashKind::process, CrashKind::machine}) {
        INFO(to_string(kind));
        PoolWorld world(pool_settings(5, 0, false));
        world.try_lock_at(1_s, world.client_a);
        world.engine.schedule_at(at(5_s), no_node,
                                 [&world, kind] { world.engine.crash(world.pooler_node, "test", kind); });
        world.engine.schedule_at(at(6_s), no_node, [&world] { world.engine.restart(world.pooler_node); });
        world.try_lock_at(10_s, world.client_b);
        world.run(1_min);
        const auto ended = events_of(world.engine, trace_kind::db_session_ended);
        REQUIRE(world.sessions.size() == 2);
        CHECK(world.sessions[1] == 2);  // it came back with no connections
        if (kind == CrashKind::process) {
            REQUIRE(ended.size() == 1);
            CHECK(ended.front()->at == at(5_s + 1_ms));
            CHECK(world.replies[1] == std::optional<bool>(true));  // the lock went with session 1
        } else {
            CHECK(ended.empty());
            CHECK(world.replies[1] == std::optional<bool>(false));  // still held by session 1
        }
    }
}

// A statement waiting at the pooler when it dies: the client's connection is reset, and it
// hears at once (connection.refused) rather than at its own deadline.
TEST_CASE("pgbouncer: a client whose statement is at the pooler when it dies hears at once") {
    PoolWorld world(pool_settings(1, 0, false));
    // Cut the pooler from the database, so the statement waits there.
    world.engine.schedule_at(at(500_ms), no_node, [&world] { world.network.cut(world.pooler_node, world.database); });
    world.try_lock_at(1_s, world.client_a);
    world.engine.schedule_at(at(3_s), no_node, [&world] { world.engine.crash(world.pooler_node, "test"); });
    world.run(1_min);
    REQUIRE(world.answers.size() == 1);
    CHECK_FALSE(world.answers[0].has_value());
    CHECK(world.answered_at[0] == at(3_s));
    CHECK(events_of(world.engine, trace_kind::connection_refused).size() == 1);
}

TEST_CASE("pgbouncer: LIFO lends the lone asking client its own connection again: server 2 starves, the lock leaks") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    const auto& design = design_named(outcome, "pgbouncer-transaction-mode");
    CHECK(grants_in(design) == std::vector<std::string>{"server-1 advisory"});
    CHECK(design.metrics.overlaps.empty());
    CHECK(design.metrics.value(Metric::double_charges) == 0);
    CHECK(design.metrics.value(Metric::lock_refusals) > 100);
    const auto replies = session_replies(design.trace);
    REQUIRE(replies.size() > 100);
    CHECK(replies[0] == "t (server session 1)");
    // Every later statement, server 2's tries and server 1's unlock, was lent session 2.
    for (std::size_t k = 1; k < replies.size(); ++k) CHECK(replies[k] == "f (server session 2)");
}

// Round robin: server 2, waiting while the pooler opened its second connection, is lent
// the one idle longest, session 1, which holds the lock; with both kept open from the start
// it is refused once on session 2 first.
TEST_CASE("pgbouncer: round robin soon lends server 2 the holding session, and both hold the lock") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    const auto replies_of = [&outcome](const std::string& name) {
        const auto& design = design_named(outcome, name);
        CHECK(grants_in(design) ==
              std::vector<std::string>{"server-1 advisory", "server-2 advisory, again on session 1"});
        CHECK(design.metrics.overlaps.size() == 1);
        for (const auto& event : design.trace.events()) CHECK(event.kind != trace_kind::lock_released);
        return std::pair{session_replies(design.trace), design.metrics.value(Metric::lock_refusals)};
    };
    // One unlock on each session: the one on session 2 unlocks nothing, and the lock, taken
    // twice on session 1, is still held there when both jobs have ended.
    const auto [pool_of_two, refused_in_pool_of_two] = replies_of("pgbouncer-round-robin");
    CHECK(pool_of_two == std::vector<std::string>{"t (server session 1)", "t (server session 1)",
                                                  "f (server session 2)", "t (server session 1)"});
    CHECK(refused_in_pool_of_two == 0);
    const auto [two_open, refused_with_two_open] = replies_of("pgbouncer-round-robin-two-open");
    CHECK(two_open == std::vector<std::string>{"t (server session 1)", "f (server session 2)", "t (server session 1)",
                                               "f (server session 2)", "t (server session 1)"});
    CHECK(refused_with_two_open == 1);
}

// A restart of the pooler closes its connections: the database ends their sessions, and
// the lock with them; server 2 is granted it on a new connection while server 1 works on.
TEST_CASE("pgbouncer: a restart of the pooler frees the lock under its holder") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    const auto& design = design_named(outcome, "pgbouncer-restart");
    CHECK(grants_in(design) == std::vector<std::string>{"server-1 advisory", "server-2 advisory"});
    const auto ended = events_of(design.trace, trace_kind::db_session_ended);
    REQUIRE(ended.size() == 2);  // both of its connections
    CHECK(ended[0]->at == at(6_s + 1_ms));
    CHECK(ended[0]->text("reason") == "connection closed");
    CHECK(design.metrics.overlaps.size() == 1);
    CHECK(design.metrics.value(Metric::double_charges) == 2);
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
