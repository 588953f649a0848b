#include "models/billing_database.hpp"

#include <cassert>

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
        if (visible(item, period).status == RenewalStatus::charged) continue;
        read(item, period);  // each row the query returns, as the trace shows a read
        items.push_back(item);
    }
    return items;
}

RenewalRow BillingDatabase::visible(std::int64_t customer, const std::string& period) {
    const RenewalRow* found = row(customer, period);
    if (found == nullptr) return RenewalRow{};
    const auto written = uncommitted_.find({customer, period});
    if (written != uncommitted_.end() && written->second.transaction != statement_transaction_)
        return *written->second.before;
    return *found;
}

void BillingDatabase::keep_before(const std::pair<std::int64_t, std::string>& key, const RenewalRow& before,
                                  NodeId client) {
    const auto written = uncommitted_.find(key);
    // PostgreSQL would make this statement wait for the other transaction to end; here only
    // a lock's holder writes inside a transaction, and it ends before anyone else holds.
    assert(written == uncommitted_.end() || written->second.transaction == statement_transaction_);
    if (!statement_transaction_ || written != uncommitted_.end()) return;
    uncommitted_.emplace(key, Uncommitted{*statement_transaction_, client, before});
}

void BillingDatabase::end_transaction(std::int64_t transaction, bool committed) {
    for (auto written = uncommitted_.begin(); written != uncommitted_.end();) {
        if (written->second.transaction != transaction) {
            ++written;
            continue;
        }
        const auto& [customer, period] = written->first;
        if (!committed) {
            renewals_[written->first] = *written->second.before;
            host_.record(trace_kind::db_rolled_back, {{"session", transaction},
                                                      {"client", written->second.client},
                                                      {"period", period},
                                                      {"customer", customer},
                                                      {"status", to_string(written->second.before->status)}});
        }
        written = uncommitted_.erase(written);
    }
    for (auto build = uncommitted_builds_.begin(); build != uncommitted_builds_.end();) {
        if (build->second.transaction != transaction) {
            ++build;
            continue;
        }
        if (!committed) {
            index_builds_.erase(build->first);
            host_.record(trace_kind::db_rolled_back,
                         {{"session", transaction}, {"client", build->second.client}, {"period", build->first}});
        }
        build = uncommitted_builds_.erase(build);
    }
}

RenewalRow BillingDatabase::read(std::int64_t customer, const std::string& period) {
    const RenewalRow result = visible(customer, period);
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
    if (changes) {
        keep_before({customer, period}, *target, client);
        *target = RenewalRow{RenewalStatus::claimed, token, host_.wall_now()};
    }
    record_write(customer, period, RenewalStatus::claimed, token, changes ? 1 : 0, client);
    return changes ? 1 : 0;
}

int BillingDatabase::insert_claim(std::int64_t customer, const std::string& period, NodeId client) {
    RenewalRow* target = row(customer, period);
    const bool inserted = target != nullptr && target->status == RenewalStatus::due;
    if (inserted) {
        keep_before({customer, period}, *target, client);
        target->status = RenewalStatus::claimed;
    }
    record_write(customer, period, RenewalStatus::claimed, std::nullopt, inserted ? 1 : 0, client);
    return inserted ? 1 : 0;
}

bool BillingDatabase::index_built_for(const std::string& period) {
    const auto uncommitted = uncommitted_builds_.find(period);
    const bool built = index_builds_.contains(period) && (uncommitted == uncommitted_builds_.end() ||
                                                          uncommitted->second.transaction == statement_transaction_);
    host_.record(trace_kind::index_checked, {{"period", period}, {"built", built}});
    return built;
}

void BillingDatabase::record_index_build(const std::string& period, Duration processor_time, NodeId client) {
    if (index_builds_.insert(period).second && statement_transaction_)
        uncommitted_builds_.emplace(period, Uncommitted{*statement_transaction_, client, std::nullopt});
    host_.record(trace_kind::index_built, {{"period", period}, {"cpu", processor_time}, {"client", client}});
}

int BillingDatabase::record_charged(std::int64_t customer, const std::string& period, std::optional<std::int64_t> token,
                                    NodeId client) {
    RenewalRow* target = row(customer, period);
    const bool changes = target != nullptr && (!token || target->fence <= *token);
    if (changes) {
        keep_before({customer, period}, *target, client);
        target->status = RenewalStatus::charged;
        if (token) target->fence = *token;
    }
    record_write(customer, period, RenewalStatus::charged, token, changes ? 1 : 0, client);
    return changes ? 1 : 0;
}

}  // namespace locksim
