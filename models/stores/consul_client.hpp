#pragma once
// The client of a Consul lock, as Consul's api.Lock builds one: it creates a session with
// the lock's ttl and lock-delay, keeps it renewed while it waits (at the lock's renewal
// interval, ttl/3 by default; api.Lock renews every ttl/2), and acquires the key with it. Where api.Lock waits in a
// blocking query for the key to change, this client polls with the lock's retry policy, which the same refusals answer
// (while a lock-delay holds a key back, api.Lock too sleeps and asks again).
//
// Once it holds the lock it keeps no deadline of its own: api.Lock times nothing on the
// holder's clock. It watches the key with blocking queries (monitorLock in api/lock.go)
// and learns the lock is lost when the key no longer carries its session, or when a query
// fails; meanwhile extend() renews the session (RenewPeriodic), which a pause only delays:
// on waking it renews a session the server has not yet invalidated (the server waits
// ttl x 2). A 404 means the server invalidated it, and with it the lock. Release lets the
// key go, then destroys the session.
#include <optional>
#include <string>

#include "models/lock_client.hpp"
#include "models/stores/consul_server.hpp"
#include "models/stores/store_deployment.hpp"
#include "sim/network.hpp"

namespace locksim {

class ConsulLockClient final : public PollingLockClient {
public:
    ConsulLockClient(Host host, Network& network, NodeId store_node, ConsulServer& store, const LockSpec& spec);

    Task<ExtendResult> extend(const Lease& lease) override;
    Task<void> release(const Lease& lease) override;
    bool watches_lock() const override { return true; }
    Task<std::string> watch_for_loss(const Lease& lease) override;

protected:
    Task<std::optional<Lease>> try_acquire() override;

private:
    struct OwnSession {
        std::string id;
        Instant renewal_sent;  // monotonic: when the last acknowledged create or renew left
    };

    // A session renewed within the renewal interval, created or renewed now if need be;
    // false if the server did not answer in time.
    Task<bool> keep_session();
    // PUT /v1/session/renew/<id>: true (200) or false (404), nullopt without a reply.
    Task<std::optional<bool>> renew(std::string id);
    void forget_session(const std::string& id);

    Network& network_;
    NodeId store_node_;
    ConsulServer& store_;
    LockSpec spec_;
    std::optional<OwnSession> session_;
};

}  // namespace locksim
