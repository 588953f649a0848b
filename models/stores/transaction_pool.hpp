#pragma once
// PgBouncer's pool in transaction mode (pool_mode = transaction), as PgBouncer 1.18 keeps
// it (src/objects.c, src/janitor.c): server sessions the pooler opened itself, each lent
// to one client for one transaction and then put back on an idle list.
//
// - find_server() lends the first session of the idle list; only when none is idle does
//   the pooler open a new one (launch_new_connection(), up to default_pool_size).
// - release_server() puts a session back at the head of the idle list (LIFO: the one
//   released last is lent next), or at its tail with server_round_robin = 1; that is all
//   round robin changes.
// - check_pool_size() keeps min_pool_size sessions open (never more than
//   default_pool_size) once a client has connected, and opens new ones when the database
//   ended some.
// - A session the database ended (an idle timeout, a crash) leaves the pool at once:
//   PgBouncer reads the closed socket and disconnects it (server_proto() in src/server.c,
//   SBUF_EV_RECV_FAILED).
//
// Every statement here ends inside the event that runs it, so no transaction is in flight
// when the next one asks: one idle session always serves it, and without min_pool_size the
// pool never opens a second. default_pool_size then bounds only min_pool_size. A second
// connection that real PgBouncer opens for a client whose statement overlaps another's
// (a transaction left open, a slow query) is not modelled.
#include <cstdint>
#include <deque>

#include "models/stores/database_locks.hpp"
#include "models/stores/lock_spec.hpp"

namespace locksim {

class TransactionPool {
public:
    // `pooler`: the node PgBouncer runs on (beside the database).
    TransactionPool(Host pooler, DatabaseLocks& locks, PoolerSpec spec);

    // Runs one transaction of `client` on a lent server session: `statement(session)`,
    // then the session goes back to the idle list.
    template <class Statement>
    auto run(NodeId client, Statement statement) {
        const std::int64_t session = lend(client);
        auto result = statement(session);
        give_back(session);
        return result;
    }

private:
    std::int64_t lend(NodeId client);
    void give_back(std::int64_t session);
    void open_idle_session();
    void forget_ended_sessions();

    Host pooler_;
    DatabaseLocks& locks_;
    PoolerSpec spec_;
    std::deque<std::int64_t> idle_;  // lent from the front
};

}  // namespace locksim
