#pragma once
// What the tests of the lock stores and their client libraries share: the lock's key and a
// Redis lock on it, a deployment's context in a test's own world, and a process that
// waits, then acquires through a store's client and notes what it saw.
#include <optional>
#include <string>
#include <utility>

#include "models/lock_client.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/task.hpp"
#include "sim/time.hpp"

namespace locksim::testing {

// The key of the lock the tests take, as the shipped scenarios name it.
inline const std::string lock_key = "lock:renewals";

// A Redis lock on lock_key, retried every 100 to 200 ms, each request given up after 1s.
inline LockSpec redis_lock(Duration ttl = seconds(30)) {
    LockSpec lock;
    lock.store = StoreKind::redis;
    lock.key = lock_key;
    lock.ttl = ttl;
    lock.retry = RetrySpec{milliseconds(100), milliseconds(200)};
    lock.request_timeout = seconds(1);
    return lock;
}

// What deploy_*() needs: the world's nodes are found by the names the test gave them.
inline StoreContext store_context(Engine& engine, Network& network, const WorldSpec& world) {
    return StoreContext{engine, network, world,
                        [&engine](const std::string& name) { return *engine.trace().find_node(name); }};
}

// What a client process saw: readings of its own monotonic clock when it asked and when
// acquire() returned, and (for the test only) the true time at which it returned.
struct Acquired {
    std::optional<Lease> lease;
    Instant asked;
    Instant got;
    Instant got_at;
};

// Sleeps `start_after` on the client's node, then acquires and notes what it saw.
inline Task<void> acquire_after(Host host, LockStoreClient& client, Duration start_after, Acquired& acquired) {
    co_await host.sleep(start_after);
    acquired.asked = host.monotonic_now();
    auto acquiring = client.acquire();
    Lease lease = co_await acquiring;
    acquired.got = host.monotonic_now();
    acquired.got_at = host.engine().now();
    acquired.lease = std::move(lease);
}

}  // namespace locksim::testing
