#pragma once
// The client of one Redis node (or of whichever node it is pointed at): SET NX PX with a
// fresh random value, compare-and-extend, compare-and-delete or plain DEL. It times a
// lease from the moment the request left, by the monotonic clock, so a slow reply can
// only shorten what the holder believes it has.
#include <string>

#include "models/lock_client.hpp"
#include "models/stores/redis_connection.hpp"
#include "models/stores/redis_server.hpp"
#include "models/stores/store_deployment.hpp"
#include "sim/network.hpp"

namespace locksim {

class RedisLockClient final : public PollingLockClient {
public:
    RedisLockClient(Host host, Network& network, NodeId store_node, RedisServer& store, const LockSpec& spec);

    Task<ExtendResult> extend(const Lease& lease) override;
    Task<void> release(const Lease& lease) override;

protected:
    Task<std::optional<Lease>> try_acquire() override;

private:
    RedisConnection connection_;
    LockSpec spec_;
    RandomStream values_;  // a fresh random value for every acquire
};

}  // namespace locksim
