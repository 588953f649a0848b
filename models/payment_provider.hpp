#pragma once
// The payment provider. It honours an idempotency key: a second request with a key it has
// seen returns the first charge instead of charging again — unless it does not support
// keys, or has forgotten the key (providers keep them for a while, Stripe for 24 hours).
// Where the design fences at the provider, a request carries the lock's token and the
// provider refuses one below the highest it has seen; the same token passes again, since
// one holder charges many customers with it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/requests_in_flight.hpp"
#include "models/world/world_spec.hpp"
#include "sim/host.hpp"

namespace locksim {

struct ChargeReceipt {
    std::int64_t charge_id = 0;
    bool replayed = false;  // the key was seen before: no money moved
    bool refused = false;   // the token was below the highest seen: no money moved
};

class PaymentProvider {
public:
    PaymentProvider(Host host, ProviderSpec spec) : host_(host), spec_(spec) {}

    ChargeReceipt charge(std::int64_t customer, const std::string& period,
                         const std::optional<std::string>& idempotency_key, std::optional<std::int64_t> token,
                         NodeId client);

    // Charge requests on their way here.
    RequestsInFlight& requests() { return requests_; }

private:
    // What a key's first request charged, and for what: a replay tells whose charge it
    // returned, so a key that does not tell two periods apart shows in the trace.
    struct KeptKey {
        std::int64_t charge_id = 0;
        std::int64_t customer = 0;
        std::string period;
        Instant first_used;  // on the provider's monotonic clock
    };

    Host host_;
    ProviderSpec spec_;
    std::int64_t next_charge_id_ = 1;
    std::int64_t highest_token_ = 0;
    std::map<std::string, KeptKey> charges_by_key_;
    RequestsInFlight requests_;
};

}  // namespace locksim
