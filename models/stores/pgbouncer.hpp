#pragma once
// PgBouncer in transaction mode (pool_mode = transaction) on a node of its own, as
// PgBouncer 1.18 keeps its pool (src/objects.c, src/janitor.c): the clients send it their
// statements, and it runs each on a server connection it opened to the database, lent to
// that client for that one transaction and then put back.
//
// - find_server(): the first connection of the idle list. When none is idle and fewer
//   than default_pool_size are open, launch_new_connection() opens one (a login round trip
//   to the database; one login at a time, and after a failed one none for
//   server_login_retry, 15 s); meanwhile, and when the pool is full, the client waits
//   (cl_waiting) until a connection opens or comes back.
// - A connection is busy until the database's answer is back at the pooler: clients whose
//   statements overlap are lent different connections, and the pool grows.
// - release_server() → change_server_state(SV_IDLE): back at the head of the idle list
//   (LIFO: the one released last is lent next), or at its tail with server_round_robin.
//   A connection older than server_lifetime is closed at its release instead (life_over():
//   at most one such close per server_lifetime / default_pool_size).
// - The janitor (three rounds a second, check_unused_servers()): closes a connection idle
//   longer than server_idle_timeout (while more than min_pool_size are open) or older than
//   server_lifetime, and keeps min_pool_size open once a client has connected
//   (check_pool_size()).
// - A connection the database closed (an idle timeout, a crash) leaves the pool: PgBouncer
//   reads the closed socket (SBUF_EV_RECV_FAILED), and the client whose statement was on
//   it gets an error ("server conn crashed?").
// - Its own crash closes its sockets (a dead process's kernel does), so the database ends
//   every session it had open and every session lock on them goes; a crash of its machine
//   leaves them to the database's TCP keepalive. It restarts with no connections.
//
// Left out: server_check_query before reusing a connection idle past server_check_delay,
// query_timeout and query_wait_timeout (off and 120 s by default: the clients' own
// deadlines come first here), and the client side of a client's death (PgBouncer keeps
// its server connections: nothing the client held on them goes).
#include <cstdint>
#include <deque>
#include <map>
#include <optional>

#include "models/statement_relay.hpp"
#include "models/stores/database_locks.hpp"
#include "models/stores/lock_spec.hpp"
#include "sim/condition.hpp"

namespace locksim {

class PgBouncer final : public StatementRelay {
public:
    // `host`: the pooler's node; `database`: the node whose `locks` its connections reach.
    PgBouncer(Host host, Network& network, NodeId database, DatabaseLocks& locks, PoolerSpec spec,
              TcpKeepalives database_keepalives);

    NodeId node() const override { return host_.id(); }
    void relay(RelayedStatement statement) override;

private:
    struct Server {
        Instant connected;       // the pooler's monotonic clock
        Instant released;        // when it last came back (or connected)
        std::uint64_t uses = 0;  // lends so far: a janitor's check armed before the last lend is stale
    };

    Task<void> run(RelayedStatement statement);
    // find_server(), waiting in line while the pool is full; none if no connection could be opened.
    Task<std::optional<std::int64_t>> lend(NodeId client);
    // launch_new_connection(): the login; the new connection joins the idle list. The
    // caller counts it in opening_ first.
    Task<void> open_connection();
    void give_back(std::int64_t session);
    // disconnect_server(): PgBouncer closes its end, and the database ends the session.
    void close(std::int64_t session, std::string_view why);
    // The database closed it: it leaves the pool without a word to the database.
    void forget(std::int64_t session);
    void forget_closed_idle();
    int open_or_opening() const { return static_cast<int>(servers_.size()) + opening_; }
    // server_idle_timeout closes connections only while more than min_pool_size are open.
    bool above_min_pool_size() const {
        return spec_.min_pool_size == 0 || static_cast<int>(servers_.size()) > spec_.min_pool_size;
    }
    void arm_janitor(std::int64_t session);
    void janitor_round(std::int64_t session, std::uint64_t uses);
    void keep_min_pool_size();
    bool life_over(const Server& server) const;
    // life_over(), then the close it calls for; false if the connection may live on.
    bool close_if_life_over(std::int64_t session, const Server& server);
    void crashed();

    Host host_;
    Network& network_;
    NodeId database_;
    DatabaseLocks& locks_;
    PoolerSpec spec_;
    TcpKeepalives database_keepalives_;
    std::map<std::int64_t, Server> servers_;  // open connections, by their database session
    std::deque<std::int64_t> idle_;           // lent from the front
    int opening_ = 0;                         // logins on the way
    bool client_connected_ = false;           // since the last start: check_pool_size() keeps min_pool_size
    std::optional<Instant> last_lifetime_close_;
    Condition released_;  // a connection came back, or opened, or the pool shrank
};

}  // namespace locksim
