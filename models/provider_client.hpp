#pragma once
// The job's HTTP client of the payment provider: one charge request per call, with the
// Idempotency-Key header when the design sends one, and the lock's token when the design
// fences at the provider.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "models/payment_provider.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/task.hpp"

namespace locksim {

class ProviderClient {
public:
    ProviderClient(Host host, Network& network, NodeId provider_node, PaymentProvider* provider, std::string period);

    // POST a charge for this customer's period; the receipt says whether the provider
    // replayed an earlier charge for the same key, or refused a stale fencing token,
    // instead of charging.
    Task<ChargeReceipt> charge(std::int64_t customer, std::optional<std::string> idempotency_key,
                               std::optional<std::int64_t> token);

    // Each run of a recurring job renews a period of its own.
    void begin_period(std::string period) { period_ = std::move(period); }

private:
    Host host_;
    Network& network_;
    NodeId provider_node_;
    PaymentProvider* provider_;
    std::string period_;
};

}  // namespace locksim
