#pragma once
// A world to simulate, with every unit resolved: what a scenario file says once it has
// been read and checked, and what one design of it runs. Plain data, no behaviour.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/faults/fault.hpp"
#include "models/vocabulary.hpp"
#include "sim/clock.hpp"
#include "sim/distribution.hpp"
#include "sim/network.hpp"
#include "sim/time.hpp"
#include "sim/trace.hpp"

namespace locksim {

enum class StoreKind {
    redis,             // one Redis node: SET NX PX with a random value; no token
    redis_replicated,  // a Redis primary with asynchronous replicas and Sentinel-style failover
    redlock,           // N independent Redis nodes, the lock held on a majority; no token
    zookeeper,         // a consensus ensemble; ephemeral sequential nodes; token = czxid
    etcd,              // a consensus cluster; lease-bound keys; token = create revision
    lease_row,         // a database lease row whose counter rises with every grant: a fencing token
    kubernetes_lease,  // a coordination.k8s.io Lease and client-go's leader election; token = leaseTransitions
    consul,            // a Consul server: a session acquires a key; lock-delay; token = LockIndex
    in_memory,         // a lock in each server's own memory: it stops nothing on the other servers (seed §1)
    db_advisory,       // a session-level advisory lock in the billing database
    db_for_update,     // a row lock, SELECT … FOR UPDATE, held until COMMIT
    none,              // no lock at all: the design relies on something else (seed §6)
};

// Locks the database holds for a session, without a TTL.
constexpr bool is_database_lock(StoreKind store) {
    return store == StoreKind::db_advisory || store == StoreKind::db_for_update;
}

// Whether the lock's store itself hands out a number that rises with every grant.
constexpr bool gives_tokens(StoreKind store) {
    return store == StoreKind::zookeeper || store == StoreKind::etcd || store == StoreKind::lease_row ||
           store == StoreKind::kubernetes_lease || store == StoreKind::consul;
}

// Stores whose lock script can INCR a counter key beside the lock (one node, or a primary
// and its replicas): Redlock's independent nodes have no one counter to ask.
constexpr bool can_count_tokens(StoreKind store) {
    return store == StoreKind::redis || store == StoreKind::redis_replicated;
}

// Whether one node of the store leads at a time (a fault may strike {"role": "primary"}):
// not Redlock's independent nodes, nor a lock inside each server or no lock at all.
constexpr bool has_primary(StoreKind store) {
    return store != StoreKind::redlock && store != StoreKind::in_memory && store != StoreKind::none;
}

enum class ReleaseMode {
    compare_and_delete,  // delete only if the value is still ours (the right way)
    plain_delete,        // DEL whatever is there (the bug of seed section 2)
};

struct RetrySpec {
    Duration min_delay;  // a waiting client sleeps a uniformly drawn delay in [min, max]
    Duration max_delay;
};

// How long a database waits before it gives up on a client that went silent without
// closing its connection (its machine died): PostgreSQL's tcp_keepalives_idle,
// tcp_keepalives_interval and tcp_keepalives_count, by default Linux's.
struct TcpKeepalives {
    Duration idle = hours(2);
    Duration interval = seconds(75);
    int count = 9;

    Duration gives_up_after() const { return idle + interval * count; }
};

// What a Redis node keeps across a restart (MODELS.md, "Persistence").
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
    int replicas = 1;
    Duration lag{};         // how long a write waits on the primary before it is streamed
    Duration down_after{};  // Sentinel: silence after which the primary is considered down
    int wait_replicas = 0;  // WAIT n after every SET; 0: do not wait
    Duration wait_timeout{};
    // The replica a failover promotes: 0 is Sentinel's rule (the reachable replica with
    // the most replication offset applied); k names redis-replica-k, whatever it holds (a
    // misjudgement, or an operator's manual failover).
    int promote = 0;
};

struct RedlockSpec {
    int nodes = 5;
    Duration node_timeout{};  // per-node reply timeout (5-50 ms for a 10 s TTL)
};

struct ConsensusSpec {
    int ensemble = 3;
    bool watch_holder = false;    // every waiter watches the holder (the herd effect) instead of its predecessor
    Duration election_timeout{};  // silence from the leader after which a follower takes over
    Duration tick = seconds(2);   // zookeeper: tickTime; a session timeout is clamped to [2, 20] ticks
};

// client-go's leader election (k8s.io/client-go/tools/leaderelection); the lease duration
// is the lock's ttl. The defaults are the core clients' (15 s, 10 s, 2 s).
struct KubernetesLeaseSpec {
    // The leader stops leading when a renewal round, trying every retry_period, has not
    // succeeded within renew_deadline; a candidate tries every retry_period x [1, 2.2).
    Duration renew_deadline = seconds(10);
    Duration retry_period = seconds(2);
};

// Consul's sessions (README, "The models"); a session's TTL is the lock's ttl.
struct ConsulSpec {
    // What Consul's session API accepts: a TTL from 10s (the servers' session_ttl_min) to
    // 86400s, and a lock-delay it caps at 60s.
    static constexpr Duration min_ttl = seconds(10);
    static constexpr Duration max_ttl = hours(24);
    static constexpr Duration max_lock_delay = seconds(60);

    // After the server invalidates a session, the keys it held cannot be acquired for this
    // long (0 turns it off). A voluntary release starts no lock-delay.
    Duration lock_delay = seconds(15);
};

// PgBouncer in transaction mode (pool_mode = transaction) between the servers and the
// database: each statement outside a transaction runs on a server connection the pooler
// picks from a pool it shares among all clients.
struct PoolerSpec {
    int pool_size = 20;               // default_pool_size
    bool server_round_robin = false;  // false: reuse the connection released last (PgBouncer's LIFO)
};

struct LockSpec {
    StoreKind store = StoreKind::redis;
    std::string key;
    Duration ttl;
    bool renew = true;                    // renew while the value is still ours…
    std::optional<Duration> renew_every;  // …this often (default ttl/3)
    ReleaseMode release = ReleaseMode::compare_and_delete;
    RetrySpec retry;
    Duration request_timeout;      // how long a client waits for the store's reply
    std::int64_t first_token = 1;  // lease-row, kubernetes-lease: the token of the first grant
    PersistenceSpec persistence;   // redis, redis-replicated, redlock
    ReplicationSpec replication;   // redis-replicated
    RedlockSpec redlock;           // redlock
    ConsensusSpec consensus;       // zookeeper, etcd: ttl is the session (lease) timeout
    // kubernetes-lease: ttl is the lease duration.
    KubernetesLeaseSpec kubernetes;
    ConsulSpec consul;  // consul: ttl is the session TTL
    // db-*: PostgreSQL's two idle timeouts. The database ends a session idle this long
    // outside a transaction (idle_session_timeout: an advisory lock's holder), or inside
    // one (idle_in_transaction_session_timeout: a FOR UPDATE holder's).
    std::optional<Duration> idle_session_timeout;
    std::optional<Duration> idle_in_transaction_timeout;
    TcpKeepalives tcp_keepalives;       // db-*: when the database ends a dead machine's session
    std::optional<PoolerSpec> pooler;   // db-advisory: the servers reach the database through PgBouncer
    bool expires = true;                // redis: false is SET NX without PX, a lock that is not a lease (seed §2)
    bool wall_clock_durations = false;  // the holder times its lease on the wall clock, not the monotonic one
    // redis, redis-replicated: the lock script INCRs this key after every grant, and the
    // counter's new value is the fencing token. It is a key like any other: a restart
    // without persistence, or a failover to a replica that had not yet received the
    // latest increments, hands out a number already used.
    std::optional<std::string> token_counter;

    bool gives_tokens() const { return locksim::gives_tokens(store) || token_counter.has_value(); }
    // db-*: the idle timeout that can end the holder's session while it holds the lock
    // (the holder's ttl).
    std::optional<Duration> holder_idle_timeout() const {
        return store == StoreKind::db_for_update ? idle_in_transaction_timeout : idle_session_timeout;
    }
};

enum class JobKind {
    renewals,       // charge each customer's renewal: a double run charges twice (correctness)
    index_rebuild,  // rebuild the search index: a double run wastes processor time (efficiency)
};

// Which customers a server's job handles.
enum class Assignment {
    all,   // every server runs the whole job; the lock decides who
    hash,  // each customer belongs to one server: id modulo the server count (seed §6: give each key one owner)
};

// What a server holds the lock for.
enum class LockScope {
    each_run,    // take it when the job starts, release it when the job ends
    leadership,  // campaign from the start of the run and keep it: only the leader's scheduler runs jobs (seed §6)
};

// The job's HTTP client of the payment provider: how long it waits for a charge's reply,
// and how often it asks again. Without a timeout it waits for ever.
struct ChargeRequestSpec {
    std::optional<Duration> timeout;
    int retries = 0;     // after the first attempt, each after its own timeout
    Duration backoff{};  // before retry k: backoff x 2^(k-1)…
    Duration jitter{};   // …plus a uniform draw from [0, jitter]
};

struct JobSpec {
    JobKind kind = JobKind::renewals;
    std::string name;
    Instant starts_at;  // a wall-clock reading: each server's scheduler fires at it
    std::vector<std::int64_t> customers;
    std::string period;
    // Preparing one invoice, between the lease check and the charge: drawn per customer
    // from the server's own "work" stream (a fixed duration draws nothing).
    DurationDistribution work_per_customer = DurationDistribution::fixed(Duration{});
    bool recheck_before_charge = false;  // check the lease once more just before charging (seed §3: it does not help)
    // Start a customer only with at least this much lease left (by the holder's clock):
    // less, and the run stops so the lock can pass on before the lease runs out.
    std::optional<Duration> min_lease_left;
    ChargeRequestSpec charge_request;
    bool check_lease = true;                        // check the lease before each customer; false: only stop when told
    bool skip_when_refused = false;                 // a server refused the lock ends its run instead of retrying
    std::optional<std::int64_t> error_at_customer;  // the job throws while handling this customer…
    std::string error_on_server;                    // …on this server
    bool release_in_finally = true;  // false: an error skips the release; the lock stays until it expires
    Duration rebuild_work{};         // index_rebuild: processor time one build takes
    Assignment assignment = Assignment::all;
    LockScope lock_scope = LockScope::each_run;
    // A recurring job, as a cron runs it: `runs` runs, `every` apart from `starts_at`; a
    // server's scheduler fires `start_offsets[server]` later (its clock or its queue).
    // Each run renews its own period, so a run's duplicates are its own.
    Duration every{};
    std::int64_t runs = 1;
    std::map<std::string, Duration> start_offsets;

    // "2026-10" for a job that runs once; "2026-10#3" for the third run of a recurring one.
    std::string period_of_run(std::int64_t run) const {
        return runs == 1 ? period : period + "#" + std::to_string(run);
    }
    Duration start_offset_of(const std::string& server) const {
        const auto found = start_offsets.find(server);
        return found == start_offsets.end() ? Duration{} : found->second;
    }
};

// How the job protects the resources it writes to.
struct ProtectionSpec {
    bool fence_database = false;  // claim the billing row with the lock's token before charging
    // Send the lock's token with each charge; the provider refuses a token lower than the
    // highest it has seen. It must accept the same token again (one holder charges many
    // customers), so two holders given the same number both get through.
    bool fence_provider = false;
    std::optional<std::string> idempotency_key;  // template such as "renewal-{customer}-{period}"
    bool unique_claim = false;  // INSERT the renewal row first; the unique key lets one server win (seed §6)
    // fence_database: the claim takes only a row still due, never one claimed or charged
    // under any token, so a stale holder that claims first keeps the newer one out…
    bool claim_once = false;
    // …unless the row was claimed (not charged) this long ago by the database's clock and
    // the new token is higher: its claimer is presumed dead. None: a claimed row is never
    // taken back (an operator must look at it).
    std::optional<Duration> reclaim_after;
};

// What the payment provider does with the idempotency keys it is sent.
struct ProviderSpec {
    bool honours_keys = true;               // false: a provider without key support charges every request
    std::optional<Duration> key_retention;  // a key is forgotten this long after its first charge (Stripe: 24h)
};

// A link whose delay differs from the network's default.
struct LinkSpec {
    std::string a;
    std::string b;
    DelayModel delay;
    LinkBehaviour behaviour;
};

struct WorldSpec {
    std::vector<std::string> servers;
    std::vector<std::string> store_nodes;  // the lock store's nodes, named after the store kind
    std::string billing_node;
    std::string provider_node;
    std::map<std::string, ClockSettings> clocks;  // nodes not listed keep perfect clocks
    DelayModel link_delay;
    LinkBehaviour link_behaviour;
    std::vector<LinkSpec> links;
    LockSpec lock;
    JobSpec job;
    ProtectionSpec protection;
    ProviderSpec provider;
    std::vector<Fault> faults;
    std::vector<FaultGenerator> fault_generators;
    Duration horizon;       // the run stops at this true time even if work is pending
    Vocabulary vocabulary;  // what reports call the job's things
};

}  // namespace locksim
