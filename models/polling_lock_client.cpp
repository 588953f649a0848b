#include "models/lock_client.hpp"

namespace locksim {

Task<Lease> PollingLockClient::acquire() {
    for (;;) {
        if (auto lease = co_await try_acquire()) co_return std::move(*lease);
        co_await host_.sleep(retry_delays_.uniform(retry_.min_delay, retry_.max_delay));
    }
}

}  // namespace locksim
