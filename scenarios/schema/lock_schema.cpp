#include <fmt/format.h>

#include <array>
#include <string_view>
#include <vector>

#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// Defaults for fields a scenario may leave out; README.md lists them.
constexpr Duration default_request_timeout = seconds(1);
constexpr Duration default_retry_min = milliseconds(500);
constexpr Duration default_retry_max = milliseconds(1500);
constexpr Duration default_down_after = seconds(30);         // Sentinel's down-after-milliseconds
constexpr Duration default_node_timeout = milliseconds(50);  // Redlock, per node
constexpr Duration default_election_timeout = seconds(2);
// client-go waits retry_period x [1, 1 + JitterFactor) between a candidate's tries.
constexpr std::int64_t client_go_jitter_tenths = 12;

struct StoreName {
    std::string_view name;
    StoreKind kind;
};
constexpr std::array<StoreName, 12> store_names{{
    {"none", StoreKind::none},
    {"in-memory", StoreKind::in_memory},
    {"redis", StoreKind::redis},
    {"redis-replicated", StoreKind::redis_replicated},
    {"redlock", StoreKind::redlock},
    {"zookeeper", StoreKind::zookeeper},
    {"etcd", StoreKind::etcd},
    {"consul", StoreKind::consul},
    {"lease-row", StoreKind::lease_row},
    {"kubernetes-lease", StoreKind::kubernetes_lease},
    {"db-advisory", StoreKind::db_advisory},
    {"db-for-update", StoreKind::db_for_update},
}};

// Options that belong to some stores only; naming one on another store is an error, not
// a silently ignored field.
struct StoreOption {
    std::string_view field;
    bool (*applies)(StoreKind);
    std::string_view stores;  // for the message
};
bool is_redis_family(StoreKind k) {
    return k == StoreKind::redis || k == StoreKind::redis_replicated || k == StoreKind::redlock;
}
bool is_replicated(StoreKind k) {
    return k == StoreKind::redis_replicated;
}
bool is_redlock(StoreKind k) {
    return k == StoreKind::redlock;
}
bool is_consensus(StoreKind k) {
    return k == StoreKind::zookeeper || k == StoreKind::etcd;
}
bool is_zookeeper(StoreKind k) {
    return k == StoreKind::zookeeper;
}
bool is_consul(StoreKind k) {
    return k == StoreKind::consul;
}
bool is_kubernetes(StoreKind k) {
    return k == StoreKind::kubernetes_lease;
}
bool numbers_its_first_grant(StoreKind k) {
    return k == StoreKind::lease_row || is_kubernetes(k);
}
bool is_polling(StoreKind k) {
    return !is_consensus(k) && k != StoreKind::db_for_update && k != StoreKind::in_memory && k != StoreKind::none;
}
bool has_ttl(StoreKind k) {
    return !is_database_lock(k) && k != StoreKind::in_memory && k != StoreKind::none;
}
// client-go renews every retry_period and retries after its jittered retry_period: the
// generic renew and retry options would say something else.
bool renews_as_told(StoreKind k) {
    return has_ttl(k) && !is_kubernetes(k);
}
bool retries_as_told(StoreKind k) {
    return is_polling(k) && !is_kubernetes(k);
}
bool is_database(StoreKind k) {
    return is_database_lock(k);
}
bool is_advisory(StoreKind k) {
    return k == StoreKind::db_advisory;
}
bool counts_tokens(StoreKind k) {
    return can_count_tokens(k);
}
bool releases_by_value(StoreKind k) {
    return k == StoreKind::redis || k == StoreKind::redis_replicated || k == StoreKind::redlock ||
           k == StoreKind::lease_row;
}
constexpr std::array<StoreOption, 25> store_options{{
    {"ttl", has_ttl,
     "the lease-based stores; the database holds its locks for the session (see idle_session_timeout and "
     "idle_in_transaction_timeout)"},
    {"renew", renews_as_told,
     "the lease-based stores but kubernetes-lease (which renews every retry_period); a database session is kept "
     "alive only against its idle timeout"},
    {"release", releases_by_value, "redis, redis-replicated, redlock and lease-row"},
    {"retry", retries_as_told,
     "redis, redis-replicated, redlock, consul, lease-row and db-advisory (the others queue waiters, and "
     "kubernetes-lease tries every retry_period)"},
    {"persistence", is_redis_family, "redis, redis-replicated and redlock"},
    {"replicas", is_replicated, "redis-replicated"},
    {"replication_lag", is_replicated, "redis-replicated"},
    {"down_after", is_replicated, "redis-replicated"},
    {"wait", is_replicated, "redis-replicated"},
    {"promote", is_replicated, "redis-replicated"},
    {"nodes", is_redlock, "redlock"},
    {"node_timeout", is_redlock, "redlock"},
    {"ensemble", is_consensus, "zookeeper and etcd"},
    {"watch", is_consensus, "zookeeper and etcd"},
    {"election_timeout", is_consensus, "zookeeper and etcd"},
    {"tick", is_zookeeper, "zookeeper (etcd has no ticks; it raises a lease TTL below 2s to 2s)"},
    {"lock_delay", is_consul, "consul"},
    {"first_token", numbers_its_first_grant, "lease-row and kubernetes-lease"},
    {"renew_deadline", is_kubernetes, "kubernetes-lease"},
    {"retry_period", is_kubernetes, "kubernetes-lease"},
    {"token_counter", counts_tokens,
     "redis and redis-replicated (Redlock's independent nodes have no one counter; zookeeper, etcd, consul, "
     "lease-row and kubernetes-lease give tokens of their own)"},
    {"idle_session_timeout", is_database, "db-advisory and db-for-update"},
    {"idle_in_transaction_timeout", is_database, "db-advisory and db-for-update"},
    {"tcp_keepalives", is_database, "db-advisory and db-for-update"},
    {"pooler", is_advisory,
     "db-advisory (a FOR UPDATE lock lives inside one transaction, which a transaction pooler keeps on one "
     "connection)"},
}};

PersistenceSpec read_persistence(const JsonReader& field) {
    if (field.json().is_object()) {
        field.allow_only({"rdb"});
        const Duration every = field["rdb"].duration();
        if (every.ns <= 0) field["rdb"].fail("expected a snapshot interval above 0s");
        return PersistenceSpec{PersistenceSpec::Mode::snapshot, every};
    }
    const std::string mode = field.string();
    if (mode == "none") return PersistenceSpec{PersistenceSpec::Mode::none, {}};
    if (mode == "aof-everysec") return PersistenceSpec{PersistenceSpec::Mode::append_everysec, {}};
    if (mode == "aof-always") return PersistenceSpec{PersistenceSpec::Mode::append_always, {}};
    field.fail(
        fmt::format("unknown persistence \"{}\"; expected \"none\", \"aof-everysec\", \"aof-always\" or "
                    "{{\"rdb\": \"60s\"}}",
                    mode));
}

int read_count(const JsonReader& field, int low, int high) {
    const std::int64_t value = field.integer();
    if (value < low || value > high) field.fail(fmt::format("expected a number from {} to {}", low, high));
    return static_cast<int>(value);
}

Duration positive(const JsonReader& field) {
    const Duration d = field.duration();
    if (d.ns <= 0) field.fail("expected a duration above 0s");
    return d;
}

// Every field may be left out: Linux's default stands for it, as PostgreSQL's 0 does.
TcpKeepalives read_tcp_keepalives(const JsonReader& field) {
    field.allow_only({"idle", "interval", "count"});
    TcpKeepalives keepalives;
    if (field.has("idle")) keepalives.idle = positive(field["idle"]);
    if (field.has("interval")) keepalives.interval = positive(field["interval"]);
    if (field.has("count")) keepalives.count = read_count(field["count"], 1, 1000);
    return keepalives;
}

// PgBouncer in transaction mode: {"pool_size": 20, "server_round_robin": false}.
PoolerSpec read_pooler(const JsonReader& field) {
    field.allow_only({"mode", "pool_size", "server_round_robin"});
    if (field.has("mode") && field["mode"].string() != "transaction")
        field["mode"].fail(
            "expected \"transaction\": in session mode a client keeps its server connection, as without a "
            "pooler (leave \"pooler\" out), and statement mode refuses the transactions a job needs");
    PoolerSpec pooler;
    if (field.has("pool_size")) pooler.pool_size = read_count(field["pool_size"], 1, 1000);
    if (field.has("server_round_robin")) pooler.server_round_robin = field["server_round_robin"].boolean();
    return pooler;
}

// "most-up-to-date" (Sentinel's rule, the default: 0) or "redis-replica-k" (k).
int read_promoted_replica(const JsonReader& field, int replicas) {
    const std::string name = field.string();
    if (name == "most-up-to-date") return 0;
    for (int k = 1; k <= replicas; ++k)
        if (name == fmt::format("redis-replica-{}", k)) return k;
    field.fail(
        fmt::format("unknown \"{}\"; expected \"most-up-to-date\" (Sentinel's rule: the replica with the most "
                    "of the stream applied) or a replica, redis-replica-1 … redis-replica-{}",
                    message_safe(name), replicas));
}

// client-go's own rules (NewLeaderElector) and habits: leaseDurationSeconds is a whole
// number; the lease outlasts the renew deadline, which outlasts a jittered retry period;
// the leader renews every retry_period and a candidate tries every retry_period x [1, 2.2).
void read_kubernetes_options(const JsonReader& lock, LockSpec& spec) {
    if (spec.ttl.ns % seconds(1).ns != 0)
        lock["ttl"].fail("expected a whole number of seconds: a Lease records leaseDurationSeconds");
    KubernetesLeaseSpec& k = spec.kubernetes;
    if (lock.has("renew_deadline")) k.renew_deadline = positive(lock["renew_deadline"]);
    if (lock.has("retry_period")) k.retry_period = positive(lock["retry_period"]);
    if (spec.ttl <= k.renew_deadline)
        lock[lock.has("renew_deadline") ? "renew_deadline" : "ttl"].fail(fmt::format(
            "expected the lease duration (ttl {}) to be longer than renew_deadline ({}), as client-go requires",
            format_duration(spec.ttl), format_duration(k.renew_deadline)));
    if (k.renew_deadline.ns * 10 <= k.retry_period.ns * client_go_jitter_tenths)
        lock[lock.has("retry_period") ? "retry_period" : "renew_deadline"].fail(
            fmt::format("expected renew_deadline ({}) to be longer than 1.2 x retry_period ({}), as client-go requires",
                        format_duration(k.renew_deadline), format_duration(k.retry_period)));
    if (lock.has("durations"))
        lock["durations"].fail("client-go times a lease on the monotonic clock only; leave \"durations\" out");
    spec.renew_every = k.retry_period;
    spec.retry = RetrySpec{k.retry_period, k.retry_period + k.retry_period * client_go_jitter_tenths / 10};
}

void read_store_options(const JsonReader& lock, LockSpec& spec) {
    if (lock.has("persistence")) spec.persistence = read_persistence(lock["persistence"]);
    if (spec.store == StoreKind::redis_replicated) {
        ReplicationSpec& r = spec.replication;
        r.replicas = lock.has("replicas") ? read_count(lock["replicas"], 1, 8) : 1;
        r.lag = lock["replication_lag"].duration();
        r.down_after = lock.has("down_after") ? positive(lock["down_after"]) : default_down_after;
        if (lock.has("wait")) {
            const JsonReader wait = lock["wait"];
            wait.allow_only({"replicas", "timeout"});
            r.wait_replicas = read_count(wait["replicas"], 1, r.replicas);
            r.wait_timeout = positive(wait["timeout"]);
        }
        if (lock.has("promote")) r.promote = read_promoted_replica(lock["promote"], r.replicas);
    }
    if (spec.store == StoreKind::redlock) {
        spec.redlock.nodes = lock.has("nodes") ? read_count(lock["nodes"], 1, 15) : 5;
        spec.redlock.node_timeout = lock.has("node_timeout") ? positive(lock["node_timeout"]) : default_node_timeout;
    }
    if (is_consensus(spec.store)) {
        spec.consensus.ensemble = lock.has("ensemble") ? read_count(lock["ensemble"], 1, 9) : 3;
        if (lock.has("watch")) {
            const std::string watch = lock["watch"].string();
            if (watch != "predecessor" && watch != "holder")
                lock["watch"].fail(fmt::format("unknown watch \"{}\"; expected \"predecessor\" or \"holder\"", watch));
            spec.consensus.watch_holder = watch == "holder";
        }
        spec.consensus.election_timeout =
            lock.has("election_timeout") ? positive(lock["election_timeout"]) : default_election_timeout;
        if (lock.has("tick")) spec.consensus.tick = positive(lock["tick"]);
    }
    if (is_kubernetes(spec.store)) read_kubernetes_options(lock, spec);
    if (spec.store == StoreKind::consul && lock.has("lock_delay")) {
        spec.consul.lock_delay = lock["lock_delay"].duration();
        if (spec.consul.lock_delay > ConsulSpec::max_lock_delay)
            lock["lock_delay"].fail("expected a lock-delay from 0s (none) to 60s: Consul caps a longer one at 60s");
    }
    if (lock.has("token_counter")) {
        spec.token_counter = lock["token_counter"].string();
        if (spec.token_counter->empty()) lock["token_counter"].fail("expected a non-empty key, such as \"jobs:token\"");
        if (*spec.token_counter == lock["key"].string())
            lock["token_counter"].fail("expected a key other than the lock's own: the counter must outlive each lock");
    }
    if (lock.has("first_token")) {
        spec.first_token = lock["first_token"].integer();
        if (spec.first_token < 1 || spec.first_token > 1'000'000'000'000'000)
            lock["first_token"].fail("expected a token from 1 to 10^15");
    }
}

}  // namespace

LockSpec read_lock(const JsonReader& lock) {
    // PostgreSQL has two idle timeouts, and which one ends a holder's session depends on
    // the lock: one "idle_timeout" would hide that.
    if (lock.has("idle_timeout"))
        lock["idle_timeout"].fail(
            "expected idle_session_timeout (ends a session idle outside a transaction: an advisory lock's "
            "holder) or idle_in_transaction_timeout (inside one: a FOR UPDATE holder's) instead");
    // Every store's fields, then those of particular stores (the lease's first).
    std::vector<std::string_view> fields{"store", "key"};
    for (const auto& option : store_options) fields.push_back(option.field);
    fields.insert(fields.end(), {"request_timeout", "durations"});
    lock.allow_only(fields);
    LockSpec spec;
    const std::string store = lock["store"].string();
    const auto* found =
        std::find_if(store_names.begin(), store_names.end(), [&](const StoreName& s) { return s.name == store; });
    if (found == store_names.end()) {
        std::vector<std::string_view> names;
        for (const auto& s : store_names) names.push_back(s.name);
        lock["store"].fail(
            fmt::format("unknown lock store \"{}\"; expected one of: {}", store, fmt::join(names, ", ")));
    }
    spec.store = found->kind;
    if (spec.store == StoreKind::none) {
        // No lock: nothing else to say about it, and a stray option would be silently
        // meaningless, so it is refused (a design that drops the base world's lock sets
        // "key": null and so on, as when switching between stores).
        lock.allow_only({"store"});
        spec.ttl = max_duration;
        spec.renew = false;
        return spec;
    }
    spec.key = lock["key"].string();
    if (spec.key.empty()) lock["key"].fail("expected a non-empty key");
    for (const auto& option : store_options)
        if (lock.has(option.field) && !option.applies(spec.store))
            lock[option.field].fail(fmt::format("\"{}\" is an option of {} only", option.field, option.stores));
    if (spec.store == StoreKind::in_memory) {
        spec.ttl = max_duration;  // held until released: nothing else could take it anyway
        spec.renew = false;
    } else if (spec.store == StoreKind::redis && lock["ttl"].json() == "none") {
        if (lock.has("renew")) lock["renew"].boolean();  // checked, though a lock that never expires needs no renewal
        spec.expires = false;                            // SET NX without PX: a lock, not a lease
        spec.ttl = max_duration;
        spec.renew = false;
    } else if (is_database_lock(spec.store)) {
        // No TTL: with an idle timeout that applies to the lock the holder keeps its session
        // busy every timeout/3.
        if (lock.has("idle_session_timeout")) spec.idle_session_timeout = positive(lock["idle_session_timeout"]);
        if (lock.has("idle_in_transaction_timeout"))
            spec.idle_in_transaction_timeout = positive(lock["idle_in_transaction_timeout"]);
        if (lock.has("tcp_keepalives")) spec.tcp_keepalives = read_tcp_keepalives(lock["tcp_keepalives"]);
        if (lock.has("pooler")) spec.pooler = read_pooler(lock["pooler"]);
        spec.ttl = spec.holder_idle_timeout().value_or(max_duration);
        spec.renew = spec.holder_idle_timeout().has_value();
    } else {
        spec.ttl = lock["ttl"].duration();
        if (spec.ttl < milliseconds(3)) lock["ttl"].fail("expected a ttl of at least 3ms");
        if (spec.store == StoreKind::consul && (spec.ttl < ConsulSpec::min_ttl || spec.ttl > ConsulSpec::max_ttl))
            lock["ttl"].fail("expected a session TTL from 10s to 24h (86400s), the range Consul accepts");
        // true (every ttl/3, as client libraries do), false, or how often: "3s".
        const JsonReader renew = lock.has("renew") ? lock["renew"] : lock;
        if (!lock.has("renew") || renew.json().is_boolean()) {
            spec.renew = !lock.has("renew") || renew.boolean();
        } else {
            if (!renew.json().is_string()) renew.fail("expected true, false, or how often to renew, such as \"3s\"");
            spec.renew_every = renew.duration();
            if (spec.renew_every->ns <= 0 || *spec.renew_every >= spec.ttl)
                renew.fail(
                    fmt::format("expected a renewal interval above 0s and shorter than the ttl ({}): a renewal "
                                "after the lease ran out renews nothing",
                                format_duration(spec.ttl)));
        }
    }
    if (lock.has("release")) {
        const std::string release = lock["release"].string();
        if (release == "compare-and-delete")
            spec.release = ReleaseMode::compare_and_delete;
        else if (release == "plain-delete")
            spec.release = ReleaseMode::plain_delete;
        else
            lock["release"].fail(
                fmt::format("unknown release \"{}\"; expected \"compare-and-delete\" or \"plain-delete\"", release));
    }
    spec.retry = RetrySpec{default_retry_min, default_retry_max};
    if (lock.has("retry") && is_polling(spec.store)) {
        const JsonReader retry = lock["retry"];
        retry.allow_only({"min", "max"});
        spec.retry = RetrySpec{retry["min"].duration(), retry["max"].duration()};
        if (spec.retry.min_delay < milliseconds(1))
            retry["min"].fail("expected at least 1ms: retrying without a pause floods the store");
        if (spec.retry.max_delay < spec.retry.min_delay) retry["max"].fail("expected max to be at least min");
    }
    spec.request_timeout = lock.has("request_timeout") ? positive(lock["request_timeout"]) : default_request_timeout;
    if (lock.has("durations")) {
        const std::string clock = lock["durations"].string();
        if (clock != "monotonic" && clock != "wall")
            lock["durations"].fail(fmt::format("expected \"monotonic\" or \"wall\", got \"{}\"", clock));
        spec.wall_clock_durations = clock == "wall";
    }
    read_store_options(lock, spec);
    return spec;
}

std::vector<std::string> store_node_names(const LockSpec& lock) {
    std::vector<std::string> names;
    switch (lock.store) {
        case StoreKind::redis:
        case StoreKind::lease_row: names.push_back("lock-store"); break;
        case StoreKind::kubernetes_lease: names.push_back("kube-apiserver"); break;
        case StoreKind::in_memory: break;  // inside each server
        case StoreKind::none: break;
        case StoreKind::redis_replicated:
            names.push_back("redis-primary");
            for (int i = 1; i <= lock.replication.replicas; ++i) names.push_back(fmt::format("redis-replica-{}", i));
            names.push_back("sentinel");
            break;
        case StoreKind::redlock:
            for (int i = 1; i <= lock.redlock.nodes; ++i) names.push_back(fmt::format("redis-{}", i));
            break;
        case StoreKind::zookeeper:
            for (int i = 1; i <= lock.consensus.ensemble; ++i) names.push_back(fmt::format("zk-{}", i));
            break;
        case StoreKind::etcd:
            for (int i = 1; i <= lock.consensus.ensemble; ++i) names.push_back(fmt::format("etcd-{}", i));
            break;
        case StoreKind::consul: names.push_back("consul"); break;
        case StoreKind::db_advisory:
        case StoreKind::db_for_update: break;  // the lock lives in the billing database
    }
    return names;
}

bool store_polls(StoreKind store) {
    return is_polling(store);
}

}  // namespace locksim
