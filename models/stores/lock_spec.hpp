#pragma once
// A design's lock, with every unit resolved: which store holds it and the options the
// scenario gave it. A default here is what a scenario that leaves the option out gets;
// a bound is the range the loader accepts. store_registry.hpp says what each store is
// (its name in a file, which options it takes, its nodes, its tokens).
#include <cassert>
#include <cstdint>
#include <optional>
#include <string>

#include "sim/time.hpp"

namespace locksim {

// One entry each in the store registry (store_registry.cpp), which orders them as files
// list them. `none` stays last: the registry counts the kinds by it.
enum class StoreKind {
    redis,
    redis_replicated,
    redlock,
    zookeeper,
    etcd,
    lease_row,
    kubernetes_lease,
    consul,
    in_memory,
    db_advisory,
    db_for_update,
    none,
};

// The range a count option accepts.
struct CountRange {
    int fewest;
    int most;
};

enum class ReleaseMode {
    compare_and_delete,  // delete only if the value is still ours (the right way)
    plain_delete,        // DEL whatever is there (the bug: it frees another holder's lock)
};

struct RetrySpec {
    // A waiting client sleeps a uniformly drawn delay in [min, max].
    Duration min_delay = milliseconds(500);
    Duration max_delay = milliseconds(1500);
};

// How long a database waits before it gives up on a client that went silent without
// closing its connection (its machine died): PostgreSQL's tcp_keepalives_idle,
// tcp_keepalives_interval and tcp_keepalives_count, by default Linux's.
struct TcpKeepalives {
    static constexpr CountRange count_range{1, 1000};

    Duration idle = hours(2);
    Duration interval = seconds(75);
    int count = 9;

    Duration gives_up_after() const { return idle + interval * count; }

    // When the database resets the connection of a client whose machine died at `died`,
    // having last heard from it at `last_heard` (both on the database's monotonic clock).
    // Linux counts idleness from the last segment it received (keepalive_time_elapsed(),
    // include/net/tcp.h), and a live client's kernel answers every probe, so while the
    // client lived a probe went out and was answered each `idle` of silence; after the
    // last answer come `count` unanswered probes `interval` apart, and then the reset
    // (tcp_keepalive_timer(), net/ipv4/tcp_timer.c). A probe due at the very moment of
    // the death goes unanswered.
    Instant gives_up_at(Instant last_heard, Instant died) const {
        assert(last_heard <= died);
        const Duration silent = died - last_heard;
        const std::int64_t answered = silent.ns > 0 ? (silent.ns - 1) / idle.ns : 0;
        return last_heard + idle * answered + gives_up_after();
    }
};

// What a Redis node keeps across a restart (docs/models.md, Redis persistence).
struct PersistenceSpec {
    enum class Mode {
        none,             // nothing: a restart starts empty
        snapshot,         // RDB: the data as of the last snapshot, taken every `every`
        append_everysec,  // AOF, appendfsync everysec: the data as of the last second's fsync
        append_always,    // AOF, appendfsync always: every acknowledged write
    };
    Mode mode = Mode::none;
    Duration every{};  // snapshot interval (snapshot mode)
};

struct ReplicationSpec {
    static constexpr CountRange replicas_range{1, 8};

    int replicas = 1;
    Duration lag{};                     // how long a write waits on the primary before it is streamed
    Duration down_after = seconds(30);  // Sentinel's down-after-milliseconds: silence after which the primary is down
    int wait_replicas = 0;              // WAIT n after every SET; 0: do not wait
    Duration wait_timeout{};
    // The replica a failover promotes: 0 is Sentinel's rule (the reachable replica with
    // the most replication offset applied); k names redis-replica-k, whatever it holds (a
    // misjudgement, or an operator's manual failover).
    int promote = 0;
};

struct RedlockSpec {
    static constexpr CountRange nodes_range{1, 15};

    int nodes = 5;
    Duration node_timeout = milliseconds(50);  // per-node reply timeout (5-50 ms for a 10 s TTL)
};

struct ConsensusSpec {
    static constexpr CountRange ensemble_range{1, 9};

    int ensemble = 3;
    bool watch_holder = false;  // every waiter watches the holder (the herd effect) instead of its predecessor
    // etcd's server refuses an election timeout under 5 heartbeat intervals (embed.Config.Validate).
    static constexpr std::int64_t election_timeout_in_heartbeats = 5;

    Duration election_timeout = seconds(2);  // silence from the leader after which a follower takes over
    // etcd: how often the leader says it is alive; by default a tenth of the election
    // timeout, as etcd's defaults (100 ms, 1 s). ZooKeeper's leader: a quarter of it.
    std::optional<Duration> heartbeat_interval;
    static constexpr std::int64_t etcd_heartbeats_per_election = 10;
    static constexpr std::int64_t zookeeper_heartbeats_per_election = 4;
    // The heartbeat interval given, else the flavour's share of the election timeout.
    Duration heartbeat(std::int64_t heartbeats_per_election) const {
        return heartbeat_interval.value_or(election_timeout / heartbeats_per_election);
    }
    Duration tick = seconds(2);  // zookeeper: tickTime; a session timeout is clamped to [2, 20] ticks
};

// client-go's leader election (k8s.io/client-go/tools/leaderelection); the lease duration
// is the lock's ttl. The defaults are the core clients' (15 s, 10 s, 2 s).
struct KubernetesLeaseSpec {
    // client-go waits retry_period x [1, 1 + JitterFactor) between a candidate's tries,
    // with JitterFactor 1.2, in tenths.
    static constexpr std::int64_t jitter_tenths = 12;

    // The leader stops leading when a renewal round, trying every retry_period, has not
    // succeeded within renew_deadline; a candidate tries every retry_period x [1, 2.2).
    Duration renew_deadline = seconds(10);
    Duration retry_period = seconds(2);

    // NewLeaderElector refuses a renew deadline that a jittered retry period could outlast.
    bool deadline_outlasts_retries() const { return renew_deadline.ns * 10 > retry_period.ns * jitter_tenths; }
    // What a candidate waits between tries.
    RetrySpec candidate_retry() const { return {retry_period, retry_period + retry_period * jitter_tenths / 10}; }
};

// Consul's sessions (docs/models.md); a session's TTL is the lock's ttl (its range is
// the store's lease rule, store_registry.cpp).
struct ConsulSpec {
    // Consul caps a longer lock-delay at 60s.
    static constexpr Duration max_lock_delay = seconds(60);

    // After the server invalidates a session, the keys it held cannot be acquired for this
    // long (0 turns it off). A voluntary release starts no lock-delay.
    Duration lock_delay = seconds(15);
};

// PgBouncer in transaction mode (pool_mode = transaction) on a node of its own between the
// servers and the database: each statement outside a transaction runs on a server
// connection the pooler lends from a pool it shares among all clients
// (models/stores/pgbouncer.hpp).
struct PoolerSpec {
    static constexpr CountRange pool_size_range{1, 1000};
    static constexpr CountRange min_pool_size_range{0, 1000};

    int pool_size = 20;     // default_pool_size: at most this many server connections
    int min_pool_size = 0;  // kept open once a client has connected (at most pool_size, as in PgBouncer)
    // Which idle connection is lent first: false, the one released last (PgBouncer's LIFO);
    // true, the one idle longest.
    bool server_round_robin = false;
    // A connection open this long is closed when it comes back idle (0: used once).
    Duration server_lifetime = seconds(3600);
    // A connection idle this long is closed (0: never).
    Duration server_idle_timeout = seconds(600);
};

// db-*: where the job's own statements (its billing reads and writes) run.
enum class JobStatements {
    own_connection,  // a connection of their own: never activity on the lock's session
    lock_session,    // the lock's session, or a session the pooler lends: activity there
};

struct ClientProfile;  // models/stores/client_profiles.hpp

struct LockSpec {
    static constexpr std::int64_t highest_first_token = 1'000'000'000'000'000;

    StoreKind store = StoreKind::redis;
    std::string key;
    Duration ttl;
    // The client library that holds the lock: how it renews and what it believes. Set by
    // the loader (the store's default when the file names none); null only without a lock.
    const ClientProfile* client = nullptr;
    bool renew = true;                    // renew while the value is still ours…
    std::optional<Duration> renew_every;  // …this often (default: the client's share of the ttl)
    ReleaseMode release = ReleaseMode::compare_and_delete;
    RetrySpec retry;
    Duration request_timeout = seconds(1);  // how long a client waits for the store's reply
    std::int64_t first_token = 1;           // lease-row, kubernetes-lease: the token of the first grant
    // lease-row: the lease row is a table of the billing database itself, the database the
    // job's records go to: one node, so a crash or a cut of that database takes both.
    bool in_billing_database = false;
    PersistenceSpec persistence;  // redis, redis-replicated, redlock
    ReplicationSpec replication;  // redis-replicated
    RedlockSpec redlock;          // redlock
    ConsensusSpec consensus;      // zookeeper, etcd: ttl is the session (lease) timeout
    // kubernetes-lease: ttl is the lease duration.
    KubernetesLeaseSpec kubernetes;
    ConsulSpec consul;  // consul: ttl is the session TTL
    // db-*: PostgreSQL's two idle timeouts. The database ends a session idle this long
    // outside a transaction (idle_session_timeout: an advisory lock's holder), or inside
    // one (idle_in_transaction_session_timeout: a FOR UPDATE holder's).
    std::optional<Duration> idle_session_timeout;
    std::optional<Duration> idle_in_transaction_timeout;
    TcpKeepalives tcp_keepalives;      // db-*: when the database ends a dead machine's session
    std::optional<PoolerSpec> pooler;  // db-advisory: the servers reach the database through PgBouncer
    JobStatements job_statements = JobStatements::own_connection;  // db-*
    // db-advisory: pg_try_advisory_xact_lock, held by the transaction it is taken in (BEGIN
    // first, released at COMMIT or at the session's end), not by the session.
    bool advisory_in_transaction = false;
    bool expires = true;                // redis: false is SET NX without PX, a lock that is not a lease
    bool wall_clock_durations = false;  // the holder times its lease on the wall clock, not the monotonic one
    // redis, redis-replicated: the lock script INCRs this key after every grant, and the
    // counter's new value is the fencing token. It is a key like any other: a restart
    // without persistence, or a failover to a replica that had not yet received the
    // latest increments, hands out a number already used.
    std::optional<std::string> token_counter;
};

}  // namespace locksim
