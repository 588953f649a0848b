#pragma once
// Redlock (docs/models.md): the same key and random value on N independent Redis nodes. The
// client asks every node at once with a short per-node timeout and holds the lock only
// if a majority said OK and the time that took is below the TTL:
//
//   validity = ttl - elapsed - drift,   drift = 1% of ttl + the client's fixed allowance
//
// (2 ms in the reference algorithm and the generic client; none in redsync.)
// On failure it releases what it got everywhere and retries after a random delay.
// Extension must succeed on a majority. It hands out no token.
#include <vector>

#include "models/lock_client.hpp"
#include "models/stores/redis_connection.hpp"
#include "models/stores/store_deployment.hpp"

namespace locksim {

class RedlockClient final : public PollingLockClient {
public:
    RedlockClient(Host host, std::vector<RedisConnection> nodes, const LockSpec& spec);

    Task<ExtendResult> extend(const Lease& lease) override;
    Task<void> release(const Lease& lease) override;

protected:
    Task<std::optional<Lease>> try_acquire() override;

private:
    std::size_t majority() const { return nodes_.size() / 2 + 1; }
    Duration drift() const;
    // How many nodes answered yes (1, or true).
    Task<std::size_t> count_yes(std::vector<Task<std::optional<int>>> replies);
    Task<void> release_everywhere(const std::string& value);

    std::vector<RedisConnection> nodes_;
    LockSpec spec_;
    RandomStream values_;
};

}  // namespace locksim
