#include "models/lock_client.hpp"

namespace locksim {

Task<Lease> PollingLockClient::acquire() {
    for (;;) {
        auto lease = co_await acquire_once();
        if (lease) co_return std::move(*lease);
        co_await host_.sleep(retry_delays_.uniform(retry_.min_delay, retry_.max_delay));
    }
}

Task<std::optional<Lease>> PollingLockClient::acquire_once() {
    auto lease = co_await try_acquire();
    if (lease && lease->valid_until > host_.monotonic_now()) co_return lease;
    // A grant that took longer than the TTL to arrive is worth nothing: give it back.
    if (lease) co_await release(*lease);
    co_return std::nullopt;
}

}  // namespace locksim
