#pragma once
// Every lock store, one entry each: what a scenario file calls it, which options it takes,
// its lease rules, how its nodes are named, where its fencing tokens come from, and the
// factory that deploys it. The loader, the world, the "what if" questions and the errors
// that list stores ask here rather than switch on the kind; a new store is a new entry
// (store_registry.cpp) beside its own code.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/stores/lease_rules.hpp"
#include "models/stores/lock_options.hpp"
#include "models/stores/lock_spec.hpp"

namespace locksim {

class StoreDeployment;
struct StoreContext;

// What a grant lasts, which decides the lock's ttl.
enum class GrantLength {
    no_lock,         // "none": there is no lock to grant
    until_released,  // in-memory: nothing else could take it anyway
    lease,           // the ttl, which the holder renews (the entry's LeaseRules)
    session,         // a database lock: the holder's session, which an idle timeout may end
};

// Where a lock's fencing token comes from.
enum class TokenSource {
    none,     // a random value, or no store: nothing that rises with every grant
    store,    // the store numbers its grants itself (czxid, a revision, LockIndex, a row's counter)
    counter,  // the lock script can INCR a counter key beside the lock, if the lock names one (token_counter)
};

// How a store names its nodes: `first`, then `numbered`1 … `numbered`n, then `last`, each
// part absent where empty. A store with no node of its own lives in each server or in the
// billing database.
struct NodeNaming {
    std::string_view first;
    std::string_view numbered;                // "zk-": zk-1, zk-2, …
    int (*count)(const LockSpec&) = nullptr;  // how many numbered nodes
    std::string_view last;

    std::string numbered_node(int k) const;
};

using DeployStore = std::unique_ptr<StoreDeployment> (*)(const StoreContext& context);

struct StoreEntry {
    StoreKind kind;
    std::string_view name;         // in a scenario file: "redis-replicated"
    std::string_view description;  // one line
    // The fields of all_lock_options() it takes; every store but none also takes key,
    // request_timeout and durations.
    std::vector<std::string_view> options;
    GrantLength grant = GrantLength::lease;
    LeaseRules lease;  // when grant is lease
    NodeNaming nodes;
    TokenSource tokens = TokenSource::none;
    // One node leads at a time (a fault may strike {"role": "primary"}); a database lock's
    // is the billing database.
    bool has_primary = true;
    bool polls = true;  // answers "taken" rather than queueing a waiter: a refused job can skip its run
    // A database lock: the idle timeout of the holder's session, which can end it while it holds the lock.
    std::optional<Duration> LockSpec::*holder_idle_timeout = nullptr;
    DeployStore deploy = nullptr;  // null: the world deploys nothing

    bool takes(std::string_view option) const;
    bool database_lock() const { return grant == GrantLength::session; }
    // The servers reach one lock through it, so a leader can be elected through it.
    bool shared() const { return grant == GrantLength::lease || grant == GrantLength::session; }
};

// In the order files and messages list them: no lock, then from the simplest store.
const std::vector<StoreEntry>& all_stores();
const StoreEntry& store_entry(StoreKind kind);
const StoreEntry* find_store(std::string_view name);

// The names of the stores `which` picks, in the registry's order, as a sentence lists
// them: "redis, redis-replicated and redlock" (`conjunction` "and"), quoted if asked.
std::string store_names(const std::function<bool(const StoreEntry&)>& which, std::string_view conjunction,
                        bool quoted = false);
// The stores that take `option`, and why the others do not: "zookeeper (etcd has no ticks; …)".
std::string stores_taking(const LockOption& option);

// The store's nodes, as the lock configures them: "lock-store"; "redis-primary",
// "redis-replica-1", …, "sentinel"; "redis-1" … "redis-5"; "zk-1" …; "etcd-1" …; "consul".
std::vector<std::string> store_node_names(const LockSpec& lock);
// The node PgBouncer runs on, for a lock taken through it (lock.pooler).
inline constexpr std::string_view pooler_node_name = "pgbouncer";
// Whether some store names a node so, or a name starts like one (or the pooler's): not for a server.
bool is_store_node_name(std::string_view name);

bool has_primary(StoreKind store);
// Whether the lock hands out a number that rises with every grant.
bool gives_tokens(const LockSpec& lock);
// A database lock: the idle timeout that can end the holder's session while it holds the
// lock (its ttl); nothing for other stores.
std::optional<Duration> holder_idle_timeout(const LockSpec& lock);

// etcd's minimum lease TTL for a cluster with these timings: (3 × ElectionTicks / 2)
// heartbeats, ElectionTicks the election timeout in whole heartbeats, both in integer
// division, rounded up to whole seconds (server/etcdserver/server.go, minTTL;
// server/embed/config.go, ElectionTicks; the lessor's MinLeaseTTL takes math.Ceil of it in
// seconds). 2 s at etcd's defaults (1 s, 100 ms); 3 s, not 4 s, at 2,100/400 ms (5 ticks).
Duration etcd_minimum_ttl(const ConsensusSpec& consensus);

}  // namespace locksim
