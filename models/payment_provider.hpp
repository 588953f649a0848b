#pragma once
// The payment provider. It will never compare fencing tokens, but it honours an
// idempotency key: a second request with a key it has seen returns the first charge
// instead of charging again.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "sim/host.hpp"

namespace locksim {

struct ChargeReceipt {
    std::int64_t charge_id = 0;
    bool replayed = false;  // the key was seen before: no money moved
};

class PaymentProvider {
public:
    explicit PaymentProvider(Host host) : host_(host) {}

    ChargeReceipt charge(std::int64_t customer, const std::string& period,
                         const std::optional<std::string>& idempotency_key, NodeId client);

private:
    Host host_;
    std::int64_t next_charge_id_ = 1;
    std::map<std::string, std::int64_t> charges_by_key_;
};

}  // namespace locksim
