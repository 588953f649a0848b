#include "models/payment_provider.hpp"

#include "models/trace_kinds.hpp"

namespace locksim {

ChargeReceipt PaymentProvider::charge(std::int64_t customer, const std::string& period,
                                      const std::optional<std::string>& idempotency_key,
                                      std::optional<std::int64_t> token, std::optional<ReadVersion> if_version,
                                      NodeId client, const EffectStep& step) {
    FieldList fields{{"customer", customer}, {"period", period}, {"by", client}};
    if (!step.name.empty()) fields.push_back({"step", std::int64_t{step.number}});
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
    // After the key: a retry of a charge that went through is answered as the first was.
    // Only a conditional write is judged by its object's version and makes a new one: under
    // conditional_write every first step is one (a later step writes elsewhere), so no other
    // write changes what a reader sees, and an unconditional design keeps no versions.
    if (if_version) {
        ObjectVersion& object = objects_[{customer, period}];
        if (if_version->version != object.version) {
            fields.push_back({"if_version", if_version->version});
            fields.push_back({"version", object.version});
            fields.push_back({"changed_by", object.written_by});
            host_.record(trace_kind::provider_precondition_failed, fields);
            ChargeReceipt receipt;
            receipt.changed_since_read = true;
            receipt.changed_by = object.written_by;
            return receipt;
        }
        object = ObjectVersion{object.version + 1, client};
    }
    if (token) fields.push_back({"token", *token});
    if (if_version) fields.push_back({"if_version", if_version->version});
    const std::int64_t id = next_charge_id_++;
    if (idempotency_key && spec_.honours_keys) charges_by_key_[*idempotency_key] = KeptKey{id, customer, period, now};
    fields.push_back({"charge", id});
    host_.record(trace_kind::provider_charged, fields);
    return ChargeReceipt{id, false};
}

ReadVersion PaymentProvider::read_version(std::int64_t customer, const std::string& period, NodeId client) {
    const auto found = objects_.find({customer, period});
    const std::int64_t version = found == objects_.end() ? 0 : found->second.version;
    host_.record(trace_kind::provider_read,
                 {{"customer", customer}, {"period", period}, {"by", client}, {"version", version}});
    return ReadVersion{version};
}

}  // namespace locksim
