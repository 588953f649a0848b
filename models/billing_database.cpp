#include "models/billing_database.hpp"

#include "models/trace_kinds.hpp"

namespace locksim {

const char* to_string(RenewalStatus status) {
    switch (status) {
        case RenewalStatus::due: return "due";
        case RenewalStatus::claimed: return "claimed";
        case RenewalStatus::charged: return "charged";
    }
    return "?";
}

BillingDatabase::BillingDatabase(Host host, const std::vector<std::int64_t>& customers,
                                 const std::vector<std::string>& periods, ClaimRule claim_rule)
    : host_(host),
      claim_rule_(claim_rule),
      customers_(customers.begin(), customers.end()),
      periods_(periods.begin(), periods.end()) {}

RenewalRow* BillingDatabase::row(std::int64_t customer, const std::string& period) {
    if (!customers_.contains(customer) || !periods_.contains(period)) return nullptr;
    return &renewals_[{customer, period}];  // a row not yet written is due
}

void BillingDatabase::add_item(std::int64_t item, const std::string& period) {
    customers_.insert(item);
    host_.record(trace_kind::queue_arrived, {{"customer", item}, {"period", period}});
}

std::vector<std::int64_t> BillingDatabase::pending(const std::string& period) {
    std::vector<std::int64_t> items;
    for (const std::int64_t item : customers_) {
        const RenewalRow* found = row(item, period);
        if (found != nullptr && found->status == RenewalStatus::charged) continue;
        read(item, period);  // each row the query returns, as the trace shows a read
        items.push_back(item);
    }
    return items;
}

RenewalRow BillingDatabase::read(std::int64_t customer, const std::string& period) {
    const RenewalRow* found = row(customer, period);
    const RenewalRow result = found ? *found : RenewalRow{};
    host_.record(
        trace_kind::db_read,
        {{"customer", customer}, {"period", period}, {"status", to_string(result.status)}, {"fence", result.fence}});
    return result;
}

void BillingDatabase::record_write(std::int64_t customer, const std::string& period, RenewalStatus status,
                                   std::optional<std::int64_t> token, int rows, NodeId client) {
    FieldList fields{{"customer", customer},
                     {"period", period},
                     {"status", to_string(status)},
                     {"rows", static_cast<std::int64_t>(rows)},
                     {"client", client}};
    if (token) fields.push_back({"token", *token});
    host_.record(trace_kind::db_write, fields);
}

bool BillingDatabase::claimable(const RenewalRow& row, std::int64_t token) const {
    if (row.fence >= token) return false;
    if (!claim_rule_.once || row.status == RenewalStatus::due) return true;
    // A charged row is never claimed again; a claimed one only once its claim has stood
    // unfinished for the reclaim time, by this database's clock.
    return row.status == RenewalStatus::claimed && claim_rule_.reclaim_after &&
           row.claimed_at + *claim_rule_.reclaim_after <= host_.wall_now();
}

int BillingDatabase::claim(std::int64_t customer, const std::string& period, std::int64_t token, NodeId client) {
    RenewalRow* target = row(customer, period);
    const bool changes = target != nullptr && claimable(*target, token);
    if (changes) *target = RenewalRow{RenewalStatus::claimed, token, host_.wall_now()};
    record_write(customer, period, RenewalStatus::claimed, token, changes ? 1 : 0, client);
    return changes ? 1 : 0;
}

int BillingDatabase::insert_claim(std::int64_t customer, const std::string& period, NodeId client) {
    RenewalRow* target = row(customer, period);
    const bool inserted = target != nullptr && target->status == RenewalStatus::due;
    if (inserted) target->status = RenewalStatus::claimed;
    record_write(customer, period, RenewalStatus::claimed, std::nullopt, inserted ? 1 : 0, client);
    return inserted ? 1 : 0;
}

bool BillingDatabase::index_built_for(const std::string& period) {
    const bool built = index_builds_.contains(period);
    host_.record(trace_kind::index_checked, {{"period", period}, {"built", built}});
    return built;
}

void BillingDatabase::record_index_build(const std::string& period, Duration processor_time, NodeId client) {
    index_builds_.insert(period);
    host_.record(trace_kind::index_built, {{"period", period}, {"cpu", processor_time}, {"client", client}});
}

int BillingDatabase::record_charged(std::int64_t customer, const std::string& period, std::optional<std::int64_t> token,
                                    NodeId client) {
    RenewalRow* target = row(customer, period);
    const bool changes = target != nullptr && (!token || target->fence <= *token);
    if (changes) {
        target->status = RenewalStatus::charged;
        if (token) target->fence = *token;
    }
    record_write(customer, period, RenewalStatus::charged, token, changes ? 1 : 0, client);
    return changes ? 1 : 0;
}

}  // namespace locksim
