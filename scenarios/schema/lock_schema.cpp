#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <string_view>
#include <vector>

#include "models/stores/client_profiles.hpp"
#include "models/stores/store_registry.hpp"
#include "scenarios/schema/world_schema.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

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

int read_count(const JsonReader& field, CountRange range) {
    const std::int64_t value = field.integer();
    if (value < range.fewest || value > range.most)
        field.fail(fmt::format("expected a number from {} to {}", range.fewest, range.most));
    return static_cast<int>(value);
}

Duration positive(const JsonReader& field) {
    const Duration d = field.duration();
    if (d.ns <= 0) field.fail("expected a duration above 0s");
    return d;
}

// A consensus store's timing, which etcd and ZooKeeper take in whole milliseconds: at least
// `least` (a nanosecond heartbeat would fill the run with nothing but heartbeats).
Duration consensus_timing(const JsonReader& field, Duration least) {
    const Duration d = field.duration();
    if (d < least)
        field.fail(
            fmt::format("expected at least {}: etcd and ZooKeeper count it in whole milliseconds (their "
                        "defaults are 100ms a heartbeat, 1s an election timeout), got {}",
                        least, d));
    return d;
}

// Every field may be left out: Linux's default stands for it, as PostgreSQL's 0 does.
TcpKeepalives read_tcp_keepalives(const JsonReader& field) {
    field.allow_only({"idle", "interval", "count"});
    TcpKeepalives keepalives;
    if (field.has("idle")) keepalives.idle = positive(field["idle"]);
    if (field.has("interval")) keepalives.interval = positive(field["interval"]);
    if (field.has("count")) keepalives.count = read_count(field["count"], TcpKeepalives::count_range);
    return keepalives;
}

// PgBouncer in transaction mode: {"pool_size": 20, "min_pool_size": 0, "server_round_robin": false,
// "server_lifetime": "1h", "server_idle_timeout": "10m"}.
PoolerSpec read_pooler(const JsonReader& field) {
    field.allow_only(
        {"mode", "pool_size", "min_pool_size", "server_round_robin", "server_lifetime", "server_idle_timeout"});
    if (field.has("mode") && field["mode"].string() != "transaction")
        field["mode"].fail(
            "expected \"transaction\": in session mode a client keeps its server connection, as without a "
            "pooler (leave \"pooler\" out), and statement mode refuses the transactions a job needs");
    PoolerSpec pooler;
    if (field.has("pool_size")) pooler.pool_size = read_count(field["pool_size"], PoolerSpec::pool_size_range);
    if (field.has("min_pool_size"))
        pooler.min_pool_size = read_count(field["min_pool_size"], PoolerSpec::min_pool_size_range);
    if (field.has("server_round_robin")) pooler.server_round_robin = field["server_round_robin"].boolean();
    for (auto [name, duration] : {std::pair{"server_lifetime", &PoolerSpec::server_lifetime},
                                  std::pair{"server_idle_timeout", &PoolerSpec::server_idle_timeout}}) {
        if (field.has(name)) pooler.*duration = field[name].duration();  // 0s: as PgBouncer's 0
    }
    return pooler;
}

// Where the job's own statements run: "own-connection" (the default) or "lock-session".
JobStatements read_job_statements(const JsonReader& field) {
    const std::string where = field.string();
    if (where == "own-connection") return JobStatements::own_connection;
    if (where == "lock-session") return JobStatements::lock_session;
    field.fail(fmt::format(
        "unknown \"{}\"; expected \"own-connection\" (the job's statements on a connection of their own) or "
        "\"lock-session\" (on the lock's session, or through the pooler: activity there)",
        message_safe(where)));
}

// "most-up-to-date" (Sentinel's rule, the default: 0) or a replica's node name (k).
int read_promoted_replica(const JsonReader& field, const NodeNaming& replicas_named, int replicas) {
    const std::string name = field.string();
    if (name == "most-up-to-date") return 0;
    for (int k = 1; k <= replicas; ++k)
        if (name == replicas_named.numbered_node(k)) return k;
    field.fail(
        fmt::format("unknown \"{}\"; expected \"most-up-to-date\" (Sentinel's rule: the replica with the most "
                    "of the stream applied) or a replica, {} … {}",
                    message_safe(name), replicas_named.numbered_node(1), replicas_named.numbered_node(replicas)));
}

// The store's name; the error lists every store.
const StoreEntry& read_store(const JsonReader& field) {
    const std::string name = field.string();
    if (const StoreEntry* store = find_store(name)) return *store;
    std::vector<std::string_view> names;
    for (const StoreEntry& store : all_stores()) names.push_back(store.name);
    field.fail(fmt::format("unknown lock store \"{}\"; expected one of: {}", name, fmt::join(names, ", ")));
}

// Every store's fields, then those of particular stores (the lease's first).
std::vector<std::string_view> lock_fields() {
    std::vector<std::string_view> fields{"store", "key"};
    for (const LockOption& option : all_lock_options()) fields.push_back(option.field);
    fields.insert(fields.end(), {"request_timeout", "durations"});
    return fields;
}

// An option of other stores is an error, not a silently ignored field.
void refuse_other_stores_options(const JsonReader& lock, const StoreEntry& store) {
    for (const LockOption& option : all_lock_options())
        if (lock.has(option.field) && !store.takes(option.field))
            lock[option.field].fail(fmt::format("\"{}\" is an option of {} only", option.field, stores_taking(option)));
}

// The ttl, and how often the holder renews it: true (every ttl/3, as client libraries
// do), false, or how often ("3s"). The store's rules judge the length once every option
// they depend on is read (check_lease).
void read_lease(const JsonReader& lock, const LeaseRules& rules, LockSpec& spec) {
    if (rules.may_never_expire && lock["ttl"].json() == "none") {
        if (lock.has("renew")) lock["renew"].boolean();  // checked, though a lock that never expires needs no renewal
        spec.expires = false;                            // SET NX without PX: a lock, not a lease
        spec.ttl = max_duration;
        spec.renew = false;
        return;
    }
    spec.ttl = lock["ttl"].duration();
    if (!lock.has("renew")) return;
    const JsonReader renew = lock["renew"];
    if (renew.json().is_boolean()) {
        spec.renew = renew.boolean();
        return;
    }
    if (!renew.json().is_string()) renew.fail("expected true, false, or how often to renew, such as \"3s\"");
    spec.renew_every = renew.duration();
}

// "scope": "session" (pg_try_advisory_lock) or "transaction" (pg_try_advisory_xact_lock).
void read_advisory_scope(const JsonReader& field, LockSpec& spec) {
    const std::string scope = field.string();
    if (scope != "session" && scope != "transaction")
        field.fail(
            fmt::format("unknown scope \"{}\"; expected \"session\" (pg_try_advisory_lock, held until unlocked "
                        "or the session ends) or \"transaction\" (pg_try_advisory_xact_lock, held until COMMIT)",
                        message_safe(scope)));
    spec.advisory_in_transaction = scope == "transaction";
    if (spec.advisory_in_transaction && spec.pooler)
        field.fail(
            "a transaction's advisory lock through PgBouncer is not modelled: the pool here lends a session per "
            "statement, not per transaction; leave out \"pooler\" or take the lock for the session");
}

// A database lock has no TTL: with an idle timeout that applies to the lock the holder
// keeps its session busy every timeout/3.
void read_session(const JsonReader& lock, LockSpec& spec) {
    if (lock.has("idle_session_timeout")) spec.idle_session_timeout = positive(lock["idle_session_timeout"]);
    if (lock.has("idle_in_transaction_timeout"))
        spec.idle_in_transaction_timeout = positive(lock["idle_in_transaction_timeout"]);
    if (lock.has("tcp_keepalives")) spec.tcp_keepalives = read_tcp_keepalives(lock["tcp_keepalives"]);
    if (lock.has("pooler")) spec.pooler = read_pooler(lock["pooler"]);
    if (lock.has("job_statements")) spec.job_statements = read_job_statements(lock["job_statements"]);
    if (lock.has("scope")) read_advisory_scope(lock["scope"], spec);
    spec.ttl = holder_idle_timeout(spec).value_or(max_duration);
    spec.renew = holder_idle_timeout(spec).has_value();
}

// How long a grant lasts, and so the lock's ttl and renewal.
void read_grant(const JsonReader& lock, const StoreEntry& store, LockSpec& spec) {
    switch (store.grant) {
        case GrantLength::no_lock: break;
        case GrantLength::until_released:
            spec.ttl = max_duration;  // nothing else could take it anyway
            spec.renew = false;
            return;
        case GrantLength::lease: return read_lease(lock, store.lease, spec);
        case GrantLength::session: return read_session(lock, spec);
    }
    assert(false && "a design without a lock has no grant to read");
}

// What every lock's client does: how it releases, retries, waits and times its lease.
void read_client_habits(const JsonReader& lock, LockSpec& spec) {
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
    if (lock.has("retry")) {
        const JsonReader retry = lock["retry"];
        retry.allow_only({"min", "max"});
        spec.retry = RetrySpec{retry["min"].duration(), retry["max"].duration()};
        if (spec.retry.min_delay < milliseconds(1))
            retry["min"].fail("expected at least 1ms: retrying without a pause floods the store");
        if (spec.retry.max_delay < spec.retry.min_delay) retry["max"].fail("expected max to be at least min");
    }
    if (lock.has("request_timeout")) spec.request_timeout = positive(lock["request_timeout"]);
    if (lock.has("durations")) {
        const std::string clock = lock["durations"].string();
        if (clock != "monotonic" && clock != "wall")
            lock["durations"].fail(fmt::format("expected \"monotonic\" or \"wall\", got \"{}\"", clock));
        spec.wall_clock_durations = clock == "wall";
    }
}

void read_replication(const JsonReader& lock, const StoreEntry& store, ReplicationSpec& r) {
    if (lock.has("replicas")) r.replicas = read_count(lock["replicas"], ReplicationSpec::replicas_range);
    // No default: how far the replicas fall behind is what a replicated design is about.
    r.lag = lock["replication_lag"].duration();
    if (lock.has("down_after")) r.down_after = positive(lock["down_after"]);
    if (lock.has("wait")) {
        const JsonReader wait = lock["wait"];
        wait.allow_only({"replicas", "timeout"});
        r.wait_replicas = read_count(wait["replicas"], CountRange{1, r.replicas});
        r.wait_timeout = positive(wait["timeout"]);
    }
    if (lock.has("promote")) r.promote = read_promoted_replica(lock["promote"], store.nodes, r.replicas);
}

void read_consensus(const JsonReader& lock, ConsensusSpec& c) {
    if (lock.has("ensemble")) c.ensemble = read_count(lock["ensemble"], ConsensusSpec::ensemble_range);
    if (lock.has("watch")) {
        const std::string watch = lock["watch"].string();
        if (watch != "predecessor" && watch != "holder")
            lock["watch"].fail(fmt::format("unknown watch \"{}\"; expected \"predecessor\" or \"holder\"", watch));
        c.watch_holder = watch == "holder";
    }
    // The heartbeat the ensemble derives from the election timeout (a tenth, a quarter) is a
    // whole millisecond or more too.
    if (lock.has("election_timeout")) c.election_timeout = consensus_timing(lock["election_timeout"], milliseconds(10));
    if (lock.has("heartbeat_interval")) {
        c.heartbeat_interval = consensus_timing(lock["heartbeat_interval"], milliseconds(1));
        if (c.election_timeout < *c.heartbeat_interval * ConsensusSpec::election_timeout_in_heartbeats)
            lock["heartbeat_interval"].fail(
                fmt::format("expected at most a fifth of the election_timeout ({}), as etcd's server requires",
                            c.election_timeout));
    }
    if (lock.has("tick")) c.tick = consensus_timing(lock["tick"], milliseconds(1));
}

// client-go's own rules (NewLeaderElector) and habits: the renew deadline outlasts a
// jittered retry period; the leader renews every retry_period and a candidate tries every
// retry_period x [1, 2.2), whatever the generic renew and retry would say.
void read_client_go_timing(const JsonReader& lock, LockSpec& spec) {
    KubernetesLeaseSpec& k = spec.kubernetes;
    if (lock.has("renew_deadline")) k.renew_deadline = positive(lock["renew_deadline"]);
    if (lock.has("retry_period")) k.retry_period = positive(lock["retry_period"]);
    if (!k.deadline_outlasts_retries())
        lock[lock.has("retry_period") ? "retry_period" : "renew_deadline"].fail(
            fmt::format("expected renew_deadline ({}) to be longer than 1.2 x retry_period ({}), as client-go requires",
                        format_duration(k.renew_deadline), format_duration(k.retry_period)));
    if (lock.has("durations"))
        lock["durations"].fail("client-go times a lease on the monotonic clock only; leave \"durations\" out");
    spec.renew_every = k.retry_period;
    spec.retry = k.candidate_retry();
}

// The options of particular stores; the registry has refused those of other stores, and
// the specs hold the defaults of those left out.
void read_store_options(const JsonReader& lock, const StoreEntry& store, LockSpec& spec) {
    if (lock.has("persistence")) spec.persistence = read_persistence(lock["persistence"]);
    if (store.takes("replication_lag")) read_replication(lock, store, spec.replication);
    if (lock.has("nodes")) spec.redlock.nodes = read_count(lock["nodes"], RedlockSpec::nodes_range);
    if (lock.has("node_timeout")) spec.redlock.node_timeout = positive(lock["node_timeout"]);
    read_consensus(lock, spec.consensus);
    if (store.takes("retry_period")) read_client_go_timing(lock, spec);
    if (lock.has("lock_delay")) {
        spec.consul.lock_delay = lock["lock_delay"].duration();
        if (spec.consul.lock_delay > ConsulSpec::max_lock_delay)
            lock["lock_delay"].fail("expected a lock-delay from 0s (none) to 60s: Consul caps a longer one at 60s");
    }
    if (lock.has("token_counter")) {
        spec.token_counter = lock["token_counter"].string();
        if (spec.token_counter->empty()) lock["token_counter"].fail("expected a non-empty key, such as \"jobs:token\"");
        if (*spec.token_counter == spec.key)
            lock["token_counter"].fail("expected a key other than the lock's own: the counter must outlive each lock");
    }
    if (lock.has("in_billing_database")) spec.in_billing_database = lock["in_billing_database"].boolean();
    if (lock.has("first_token")) {
        spec.first_token = lock["first_token"].integer();
        if (spec.first_token < 1 || spec.first_token > LockSpec::highest_first_token)
            lock["first_token"].fail("expected a token from 1 to 10^15");
    }
}

// The client library that holds the lock: the one named, if it speaks to the store, else
// the store's default.
const ClientProfile& read_client(const JsonReader& lock, const StoreEntry& store) {
    if (!lock.has("client")) return default_client_profile(store.kind);
    const std::string name = lock["client"].string();
    const ClientProfile* profile = find_client_profile(name);
    const auto speaking = client_profiles_of(store.kind);
    if (profile != nullptr && std::find(speaking.begin(), speaking.end(), profile) != speaking.end()) return *profile;
    std::vector<std::string_view> names;
    for (const ClientProfile* each : speaking) names.push_back(each->name);
    lock["client"].fail(fmt::format(
        "{} \"{}\"{}; expected one of the clients of store {}: {}", profile == nullptr ? "unknown client" : "client",
        message_safe(name), profile == nullptr ? "" : " speaks to other stores", store.name, fmt::join(names, ", ")));
}

// The store's lease rules, pointing at the field to change.
void check_lease(const JsonReader& lock, const LockSpec& spec) {
    const auto refusal = lease_refusal(spec, spec.ttl);
    if (!refusal) return;
    switch (refusal->rule) {
        case LeaseRule::outlasts_renewal: lock["renew"].fail(refusal->reason);
        case LeaseRule::outlasts_renew_deadline:
            lock[lock.has("renew_deadline") ? "renew_deadline" : "ttl"].fail(refusal->reason);
        case LeaseRule::shortest:
        case LeaseRule::store_range:
        case LeaseRule::whole_seconds: lock["ttl"].fail(refusal->reason);
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
    lock.allow_only(lock_fields());
    const StoreEntry& store = read_store(lock["store"]);
    LockSpec spec;
    spec.store = store.kind;
    if (store.grant == GrantLength::no_lock) {
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
    // Every message about the lock carries its key: a long one costs memory with every
    // retry, and no real lock's name needs more.
    constexpr std::size_t longest_key = 1024;
    if (spec.key.size() > longest_key)
        lock["key"].fail(fmt::format("expected a key of at most {} bytes, got {} bytes", longest_key, spec.key.size()));
    refuse_other_stores_options(lock, store);
    read_grant(lock, store, spec);
    read_client_habits(lock, spec);
    read_store_options(lock, store, spec);
    spec.client = &read_client(lock, store);
    // A library that never renews leaves it to the code: only a "renew" the file gives.
    if (!spec.client->renews && !lock.has("renew")) spec.renew = false;
    if (spec.client->waits_between_tries) {
        if (lock.has("retry"))
            lock["retry"].fail(
                fmt::format("the {} client sleeps {} to {} between tries, as its source does; leave "
                            "\"retry\" out, or name another client",
                            spec.client->name, format_duration(spec.client->waits_between_tries->min_delay),
                            format_duration(spec.client->waits_between_tries->max_delay)));
        spec.retry = *spec.client->waits_between_tries;
    }
    if (spec.client->deadline == ClientProfile::Deadline::none && spec.wall_clock_durations)
        lock["durations"].fail(
            fmt::format("the {} client times no lease of its own; leave \"durations\" out", spec.client->name));
    if (has_lease(spec)) check_lease(lock, spec);
    return spec;
}

}  // namespace locksim
