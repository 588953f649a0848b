#include "models/stores/store_registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "models/stores/store_deployment.hpp"

namespace locksim {
namespace {

// ZooKeeper clamps a session timeout to [2, 20] ticks (minSessionTimeout and
// maxSessionTimeout by default).
Duration zookeeper_session_timeout(const LockSpec& lock, Duration asked) {
    return std::clamp(asked, lock.consensus.tick * 2, lock.consensus.tick * 20);
}

// etcd raises a lease TTL below its minimum (etcd_minimum_ttl).
Duration etcd_lease_ttl(const LockSpec& lock, Duration asked) {
    return std::max(asked, etcd_minimum_ttl(lock.consensus));
}

std::vector<StoreEntry> make_registry() {
    return {
        {.kind = StoreKind::none,
         .name = "none",
         .description = "no lock at all: the design relies on something else (a unique claim, one owner per item)",
         .grant = GrantLength::no_lock,
         .has_primary = false,
         .polls = false},
        {.kind = StoreKind::in_memory,
         .name = "in-memory",
         .description = "a lock in each server's own memory: it stops nothing on the other servers",
         .grant = GrantLength::until_released,
         .has_primary = false,
         .polls = false,
         .deploy = deploy_in_memory},
        {.kind = StoreKind::redis,
         .name = "redis",
         .description = "one Redis node: SET NX PX with a random value",
         .options = {"ttl", "client", "renew", "release", "retry", "persistence", "token_counter"},
         .lease = {.may_never_expire = true},
         .nodes = {.first = "lock-store"},
         .tokens = TokenSource::counter,
         .deploy = deploy_redis},
        {.kind = StoreKind::redis_replicated,
         .name = "redis-replicated",
         .description = "a Redis primary with asynchronous replicas and Sentinel-style failover",
         .options = {"ttl", "client", "renew", "release", "retry", "persistence", "replicas", "replication_lag",
                     "down_after", "wait", "promote", "token_counter"},
         .nodes = {.first = "redis-primary",
                   .numbered = "redis-replica-",
                   .count = [](const LockSpec& lock) { return lock.replication.replicas; },
                   .last = "sentinel"},
         .tokens = TokenSource::counter,
         .deploy = deploy_replicated_redis},
        {.kind = StoreKind::redlock,
         .name = "redlock",
         .description = "N independent Redis nodes, the lock held on a majority",
         .options = {"ttl", "client", "renew", "release", "retry", "persistence", "nodes", "node_timeout"},
         .nodes = {.numbered = "redis-", .count = [](const LockSpec& lock) { return lock.redlock.nodes; }},
         .has_primary = false,
         .deploy = deploy_redlock},
        {.kind = StoreKind::zookeeper,
         .name = "zookeeper",
         .description = "a consensus ensemble; ephemeral sequential nodes; token = czxid",
         .options = {"ttl", "client", "renew", "ensemble", "watch", "election_timeout", "tick"},
         .lease = {.granted = zookeeper_session_timeout},
         .nodes = {.numbered = "zk-", .count = [](const LockSpec& lock) { return lock.consensus.ensemble; }},
         .tokens = TokenSource::store,
         .polls = false,
         .deploy = deploy_zookeeper},
        {.kind = StoreKind::etcd,
         .name = "etcd",
         .description = "a consensus cluster; lease-bound keys; token = create revision",
         .options = {"ttl", "client", "renew", "ensemble", "watch", "election_timeout", "heartbeat_interval"},
         .lease = {.granted = etcd_lease_ttl},
         .nodes = {.numbered = "etcd-", .count = [](const LockSpec& lock) { return lock.consensus.ensemble; }},
         .tokens = TokenSource::store,
         .polls = false,
         .deploy = deploy_etcd},
        {.kind = StoreKind::consul,
         .name = "consul",
         .description = "a Consul server: a session acquires a key; lock-delay; token = LockIndex",
         .options = {"ttl", "client", "renew", "retry", "lock_delay"},
         // What Consul's session API accepts: from the servers' session_ttl_min to 86400s.
         .lease = {.shortest = seconds(10),
                   .longest = hours(24),
                   .range_stated = "a session TTL from 10s to 24h (86400s), the range Consul accepts"},
         .nodes = {.first = "consul"},
         .tokens = TokenSource::store,
         .deploy = deploy_consul},
        {.kind = StoreKind::lease_row,
         .name = "lease-row",
         .description = "a database lease row whose counter rises with every grant: a fencing token",
         .options = {"ttl", "client", "renew", "release", "retry", "first_token", "in_billing_database"},
         .nodes = {.first = "lock-store"},
         .tokens = TokenSource::store,
         .deploy = deploy_lease_row},
        {.kind = StoreKind::kubernetes_lease,
         .name = "kubernetes-lease",
         .description = "a coordination.k8s.io Lease and client-go's leader election; token = leaseTransitions",
         // client-go renews and retries by its retry_period, not by renew and retry.
         .options = {"ttl", "client", "first_token", "renew_deadline", "retry_period"},
         .lease = {.whole_seconds_because = "a Lease records leaseDurationSeconds",
                   .outlasts_renew_deadline = true,
                   .holder_counts_down = false},
         .nodes = {.first = "kube-apiserver"},
         .tokens = TokenSource::store,
         .deploy = deploy_kubernetes_lease},
        {.kind = StoreKind::db_advisory,
         .name = "db-advisory",
         .description = "a session-level advisory lock in the billing database",
         .options = {"retry", "client", "idle_session_timeout", "idle_in_transaction_timeout", "tcp_keepalives",
                     "pooler", "job_statements", "scope"},
         .grant = GrantLength::session,
         .holder_idle_timeout = &LockSpec::idle_session_timeout,
         .deploy = deploy_advisory_lock},
        {.kind = StoreKind::db_for_update,
         .name = "db-for-update",
         .description = "a row lock, SELECT … FOR UPDATE, held until COMMIT",
         .options = {"idle_session_timeout", "idle_in_transaction_timeout", "tcp_keepalives", "job_statements"},
         .grant = GrantLength::session,
         .polls = false,
         .holder_idle_timeout = &LockSpec::idle_in_transaction_timeout,
         .deploy = deploy_row_lock},
    };
}

// The invariants the rest of the program relies on when it asks an entry instead of a kind.
std::vector<StoreEntry> checked(std::vector<StoreEntry> stores) {
    assert(stores.size() == static_cast<std::size_t>(StoreKind::none) + 1);  // one entry per kind
    const auto just_one = [&stores](auto same) { return std::count_if(stores.begin(), stores.end(), same) == 1; };
    for (const StoreEntry& store : stores) {
        assert(just_one([&store](const StoreEntry& s) { return s.kind == store.kind; }));
        assert(just_one([&store](const StoreEntry& s) { return s.name == store.name; }));
        for (std::string_view option : store.options) assert(find_lock_option(option) != nullptr);
        assert(store.takes("ttl") == (store.grant == GrantLength::lease));
        assert(store.takes("token_counter") == (store.tokens == TokenSource::counter));
        assert((store.holder_idle_timeout != nullptr) == store.database_lock());
        assert((store.deploy == nullptr) == (store.grant == GrantLength::no_lock));
        assert((store.nodes.count == nullptr) == store.nodes.numbered.empty());
    }
    return stores;
}

}  // namespace

Duration etcd_minimum_ttl(const ConsensusSpec& consensus) {
    constexpr std::int64_t second = 1'000'000'000;
    const Duration heartbeat = consensus.heartbeat(ConsensusSpec::etcd_heartbeats_per_election);
    // Whole ticks, as etcd counts them: ElectionTicks = ElectionMs / TickMs, and the
    // minimum (3 * ElectionTicks / 2) ticks, both in integer division.
    const std::int64_t election_ticks = consensus.election_timeout.ns / heartbeat.ns;
    const std::int64_t minimum = 3 * election_ticks / 2 * heartbeat.ns;
    return seconds((minimum + second - 1) / second);
}

std::string NodeNaming::numbered_node(int k) const {
    assert(!numbered.empty() && k >= 1);
    return fmt::format("{}{}", numbered, k);
}

bool StoreEntry::takes(std::string_view option) const {
    return std::find(options.begin(), options.end(), option) != options.end();
}

const std::vector<StoreEntry>& all_stores() {
    static const std::vector<StoreEntry> stores = checked(make_registry());
    return stores;
}

const StoreEntry& store_entry(StoreKind kind) {
    const auto& stores = all_stores();
    const auto found =
        std::find_if(stores.begin(), stores.end(), [kind](const StoreEntry& s) { return s.kind == kind; });
    assert(found != stores.end());
    return *found;
}

const StoreEntry* find_store(std::string_view name) {
    const auto& stores = all_stores();
    const auto found =
        std::find_if(stores.begin(), stores.end(), [name](const StoreEntry& s) { return s.name == name; });
    return found == stores.end() ? nullptr : &*found;
}

std::string store_names(const std::function<bool(const StoreEntry&)>& which, std::string_view conjunction,
                        bool quoted) {
    std::vector<std::string> names;
    for (const StoreEntry& store : all_stores())
        if (which(store)) names.push_back(quoted ? fmt::format("\"{}\"", store.name) : std::string(store.name));
    assert(!names.empty());
    if (names.size() == 1) return names.front();
    return fmt::format("{} {} {}", fmt::join(names.begin(), names.end() - 1, ", "), conjunction, names.back());
}

std::string stores_taking(const LockOption& option) {
    const std::string stores = store_names([&option](const StoreEntry& s) { return s.takes(option.field); }, "and");
    if (option.others_lack_it.empty()) return stores;
    const std::string stores_with_tokens =
        store_names([](const StoreEntry& s) { return s.tokens == TokenSource::store; }, "and");
    return fmt::format(
        "{} ({})", stores,
        fmt::format(fmt::runtime(option.others_lack_it), fmt::arg("stores_with_tokens", stores_with_tokens)));
}

std::vector<std::string> store_node_names(const LockSpec& lock) {
    const NodeNaming& naming = store_entry(lock.store).nodes;
    std::vector<std::string> names;
    if (lock.in_billing_database) return names;  // the billing database's node is the store's
    if (!naming.first.empty()) names.emplace_back(naming.first);
    if (naming.count != nullptr)
        for (int k = 1; k <= naming.count(lock); ++k) names.push_back(naming.numbered_node(k));
    if (!naming.last.empty()) names.emplace_back(naming.last);
    return names;
}

bool is_store_node_name(std::string_view name) {
    if (name == pooler_node_name) return true;
    for (const StoreEntry& store : all_stores())
        for (std::string_view prefix : {store.nodes.first, store.nodes.numbered, store.nodes.last})
            if (!prefix.empty() && name.starts_with(prefix)) return true;
    return false;
}

bool has_primary(StoreKind store) {
    return store_entry(store).has_primary;
}

bool gives_tokens(const LockSpec& lock) {
    const TokenSource source = store_entry(lock.store).tokens;
    return source == TokenSource::store || (source == TokenSource::counter && lock.token_counter.has_value());
}

std::optional<Duration> holder_idle_timeout(const LockSpec& lock) {
    // A transaction's advisory lock is held inside the transaction, as a FOR UPDATE lock is.
    if (lock.advisory_in_transaction) return lock.idle_in_transaction_timeout;
    const auto timeout = store_entry(lock.store).holder_idle_timeout;
    return timeout == nullptr ? std::nullopt : lock.*timeout;
}

}  // namespace locksim
