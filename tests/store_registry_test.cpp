// models/stores/store_registry.hpp and lease_rules.hpp: one entry per store, asked by the
// loader, the world and the "what if" questions instead of a switch on the kind.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/stores/lease_rules.hpp"
#include "models/stores/store_registry.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

LockSpec lock_of(std::string_view store) {
    const StoreEntry* entry = find_store(store);
    REQUIRE(entry != nullptr);
    LockSpec lock;
    lock.store = entry->kind;
    return lock;
}

std::optional<LeaseRule> rule_refusing(const LockSpec& lock, Duration ttl) {
    const auto refusal = lease_refusal(lock, ttl);
    return refusal ? std::optional(refusal->rule) : std::nullopt;
}

}  // namespace

TEST_CASE("every store kind has one entry, found by the name a scenario file gives it") {
    std::vector<std::string_view> names;
    for (const StoreEntry& store : all_stores()) {
        CHECK(&store_entry(store.kind) == &store);
        CHECK(find_store(store.name) == &store);
        names.push_back(store.name);
    }
    CHECK(names == std::vector<std::string_view>{"none", "in-memory", "redis", "redis-replicated", "redlock",
                                                 "zookeeper", "etcd", "consul", "lease-row", "kubernetes-lease",
                                                 "db-advisory", "db-for-update"});
    CHECK(find_store("Redis") == nullptr);
}

TEST_CASE("a store's nodes are named by its entry, as many as the lock configures") {
    LockSpec replicated = lock_of("redis-replicated");
    replicated.replication.replicas = 2;
    CHECK(store_node_names(replicated) ==
          std::vector<std::string>{"redis-primary", "redis-replica-1", "redis-replica-2", "sentinel"});
    LockSpec redlock = lock_of("redlock");
    redlock.redlock.nodes = 3;
    CHECK(store_node_names(redlock) == std::vector<std::string>{"redis-1", "redis-2", "redis-3"});
    CHECK(store_node_names(lock_of("etcd")) == std::vector<std::string>{"etcd-1", "etcd-2", "etcd-3"});
    CHECK(store_node_names(lock_of("kubernetes-lease")) == std::vector<std::string>{"kube-apiserver"});
    CHECK(store_node_names(lock_of("db-advisory")).empty());
    CHECK(store_node_names(lock_of("in-memory")).empty());

    // A server may not take a name a store gives, or one that starts like it.
    CHECK(is_store_node_name("zk-7"));
    CHECK(is_store_node_name("redis-replica-9"));
    CHECK(is_store_node_name("sentinel"));
    CHECK(is_store_node_name("consul-agent"));
    CHECK_FALSE(is_store_node_name("server-1"));
    CHECK_FALSE(is_store_node_name("billing-db"));
}

TEST_CASE("tokens come from the store, or from a counter key when a Redis lock names one") {
    CHECK(gives_tokens(lock_of("zookeeper")));
    CHECK(gives_tokens(lock_of("lease-row")));
    CHECK_FALSE(gives_tokens(lock_of("redlock")));
    LockSpec redis = lock_of("redis");
    CHECK_FALSE(gives_tokens(redis));
    redis.token_counter = "jobs:token";
    CHECK(gives_tokens(redis));
}

TEST_CASE("a database lock's ttl is the idle timeout that ends its holder's session") {
    LockSpec advisory = lock_of("db-advisory");
    advisory.idle_session_timeout = 30_s;
    advisory.idle_in_transaction_timeout = 10_s;
    CHECK(holder_idle_timeout(advisory) == 30_s);
    LockSpec row = advisory;
    row.store = lock_of("db-for-update").store;
    CHECK(holder_idle_timeout(row) == 10_s);
    CHECK_FALSE(holder_idle_timeout(lock_of("redis")).has_value());
}

TEST_CASE("lease rules: every store's floor, Consul's range, client-go's whole seconds and deadline, renewals") {
    CHECK(rule_refusing(lock_of("redis"), 2_ms) == LeaseRule::shortest);
    CHECK_FALSE(rule_refusing(lock_of("redis"), 3_ms));

    const LockSpec consul = lock_of("consul");
    CHECK(rule_refusing(consul, 9_s) == LeaseRule::store_range);
    CHECK(rule_refusing(consul, hours(25)) == LeaseRule::store_range);
    CHECK_FALSE(rule_refusing(consul, 10_s));
    CHECK_FALSE(rule_refusing(consul, hours(24)));
    CHECK(lease_refusal(consul, 9_s)->reason ==
          "expected a session TTL from 10s to 24h (86400s), the range Consul accepts");

    const LockSpec kubernetes = lock_of("kubernetes-lease");  // renew_deadline 10s by default
    CHECK(rule_refusing(kubernetes, 15500_ms) == LeaseRule::whole_seconds);
    CHECK(rule_refusing(kubernetes, 10_s) == LeaseRule::outlasts_renew_deadline);
    CHECK_FALSE(rule_refusing(kubernetes, 11_s));

    LockSpec renewing = lock_of("etcd");
    renewing.renew_every = 5_s;
    CHECK(rule_refusing(renewing, 5_s) == LeaseRule::outlasts_renewal);
    CHECK_FALSE(rule_refusing(renewing, 5001_ms));
}

TEST_CASE("a consensus cluster grants what the real one would: ZooKeeper clamps to ticks, etcd raises to its minimum") {
    const LockSpec zookeeper = lock_of("zookeeper");  // tick 2s: [4s, 40s]
    CHECK(granted_lease(zookeeper, 1_s) == 4_s);
    CHECK(granted_lease(zookeeper, 10_s) == 10_s);
    CHECK(granted_lease(zookeeper, 60_s) == 40_s);
    // election_timeout 2s by default: a minimum of 3s; at etcd's own default of 1s, 2s.
    CHECK(granted_lease(lock_of("etcd"), 1_s) == 3_s);
    CHECK(granted_lease(lock_of("etcd"), 5_s) == 5_s);
    LockSpec etcd_defaults = lock_of("etcd");
    etcd_defaults.consensus.election_timeout = 1_s;
    CHECK(granted_lease(etcd_defaults, 1_s) == 2_s);
    CHECK(granted_lease(lock_of("redis"), 1_s) == 1_s);
}

TEST_CASE("the errors that list stores list the registry's, in its order") {
    CHECK(stores_taking(*find_lock_option("tick")) ==
          "zookeeper (etcd has no ticks; it raises a lease TTL below 1.5 election timeouts, rounded up to whole "
          "seconds)");
    CHECK(stores_taking(*find_lock_option("token_counter")) ==
          "redis and redis-replicated (Redlock's independent nodes have no one counter; zookeeper, etcd, consul, "
          "lease-row and kubernetes-lease give tokens of their own)");
    CHECK(store_names([](const StoreEntry& s) { return s.polls; }, "or") ==
          "redis, redis-replicated, redlock, consul, lease-row, kubernetes-lease or db-advisory");
    CHECK(store_names([](const StoreEntry& s) { return s.database_lock(); }, "and", true) ==
          "\"db-advisory\" and \"db-for-update\"");
}

TEST_CASE("etcd's minimum lease TTL counts the election timeout in whole heartbeats, then rounds up to seconds") {
    // server/etcdserver/server.go: minTTL = (3 * ElectionTicks / 2) heartbeats, with
    // ElectionTicks = ElectionMs / TickMs (server/embed/config.go), both integer divisions;
    // the lessor's MinLeaseTTL is math.Ceil of it in seconds.
    const auto minimum = [](Duration election, std::optional<Duration> heartbeat = std::nullopt) {
        ConsensusSpec consensus;
        consensus.election_timeout = election;
        consensus.heartbeat_interval = heartbeat;
        return etcd_minimum_ttl(consensus);
    };
    CHECK(minimum(seconds(1)) == seconds(2));  // etcd's defaults: 100 ms heartbeat, 1 s election: 1.5 s
    CHECK(minimum(seconds(2)) == seconds(3));
    CHECK(minimum(milliseconds(500)) == seconds(1));
    CHECK(minimum(milliseconds(1400)) == seconds(3));  // 10 ticks of 140 ms, 15 of them: 2.1 s, rounded up
    CHECK(minimum(seconds(10)) == seconds(15));
    // Ticks are whole: 2,100 / 400 ms is 5 ticks, 7 heartbeats, 2.8 s: 3 s, not 1.5 × 2.1 s rounded up (4 s).
    CHECK(minimum(milliseconds(2100), milliseconds(400)) == seconds(3));
    // 1,400 / 280 ms: 5 ticks, 7 heartbeats, 1.96 s: 2 s, not 3 s.
    CHECK(minimum(milliseconds(1400), milliseconds(280)) == seconds(2));
}
