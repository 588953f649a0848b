#include "models/payment_provider.hpp"

#include "models/trace_kinds.hpp"

namespace locksim {

ChargeReceipt PaymentProvider::charge(std::int64_t customer, const std::string& period,
                                      const std::optional<std::string>& idempotency_key, NodeId client) {
    std::vector<Field> fields{{"customer", customer}, {"period", period}, {"by", client}};
    if (idempotency_key) {
        fields.push_back({"key", *idempotency_key});
        if (auto seen = charges_by_key_.find(*idempotency_key); seen != charges_by_key_.end()) {
            fields.push_back({"charge", seen->second});
            host_.record(trace_kind::provider_replayed, std::move(fields));
            return ChargeReceipt{seen->second, true};
        }
    }
    const std::int64_t id = next_charge_id_++;
    if (idempotency_key) charges_by_key_[*idempotency_key] = id;
    fields.push_back({"charge", id});
    host_.record(trace_kind::provider_charged, std::move(fields));
    return ChargeReceipt{id, false};
}

}  // namespace locksim
