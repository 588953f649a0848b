#pragma once
// Clients for the two lock stores of the foundation: one Redis node, and a database
// lease row. Both time a lease from the moment the request left, by the monotonic clock,
// so a slow reply can only shorten what the holder believes it has.
#include <string>

#include "models/lease_row_store.hpp"
#include "models/lock_client.hpp"
#include "models/redis_server.hpp"
#include "models/world/world_spec.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/random.hpp"

namespace locksim {

class RedisLockClient final : public LockStoreClient {
public:
    RedisLockClient(Host host, Network& network, NodeId store_node, RedisServer& store, const LockSpec& spec);

    Task<std::optional<Lease>> try_acquire() override;
    Task<ExtendResult> extend(const Lease& lease) override;
    Task<void> release(const Lease& lease) override;

private:
    Host host_;
    Network& network_;
    NodeId store_node_;
    RedisServer& store_;
    LockSpec spec_;
    RandomStream values_;  // a fresh random value for every acquire
};

class LeaseRowLockClient final : public LockStoreClient {
public:
    LeaseRowLockClient(Host host, Network& network, NodeId store_node, LeaseRowStore& store, const LockSpec& spec);

    Task<std::optional<Lease>> try_acquire() override;
    Task<ExtendResult> extend(const Lease& lease) override;
    Task<void> release(const Lease& lease) override;

private:
    Host host_;
    Network& network_;
    NodeId store_node_;
    LeaseRowStore& store_;
    LockSpec spec_;
};

}  // namespace locksim
