#include "models/payment_provider.hpp"

#include "models/trace_kinds.hpp"

namespace locksim {

ChargeReceipt PaymentProvider::charge(std::int64_t customer, const std::string& period,
                                      const std::optional<std::string>& idempotency_key,
                                      std::optional<std::int64_t> token, NodeId client) {
    FieldList fields{{"customer", customer}, {"period", period}, {"by", client}};
    if (token && *token < highest_token_) {
        fields.push_back({"token", *token});
        fields.push_back({"highest", highest_token_});
        host_.record(trace_kind::provider_refused, fields);
        return ChargeReceipt{0, false, true};
    }
    if (token) highest_token_ = *token;
    const Instant now = host_.monotonic_now();
    if (idempotency_key) {
        fields.push_back({"key", *idempotency_key});
        const auto seen = charges_by_key_.find(*idempotency_key);
        const bool kept = seen != charges_by_key_.end() &&
                          (!spec_.key_retention || now - seen->second.first_used < *spec_.key_retention);
        if (spec_.honours_keys && kept) {
            fields.push_back({"charge", seen->second.charge_id});
            fields.push_back({"charge_customer", seen->second.customer});
            fields.push_back({"charge_period", seen->second.period});
            host_.record(trace_kind::provider_replayed, fields);
            return ChargeReceipt{seen->second.charge_id, true};
        }
    }
    if (token) fields.push_back({"token", *token});
    const std::int64_t id = next_charge_id_++;
    if (idempotency_key && spec_.honours_keys) charges_by_key_[*idempotency_key] = KeptKey{id, customer, period, now};
    fields.push_back({"charge", id});
    host_.record(trace_kind::provider_charged, fields);
    return ChargeReceipt{id, false};
}

}  // namespace locksim
