#include "models/billing_client.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "models/sql_text.hpp"
#include "sim/duration_text.hpp"
#include "sim/rpc.hpp"

namespace locksim {

BillingClient::BillingClient(Host host, Network& network, NodeId database_node, BillingDatabase* database,
                             std::string period)
    : host_(host), network_(network), database_node_(database_node), database_(database), period_(std::move(period)) {}

// No statement has a timeout, and the foundation's network loses nothing: every request
// is answered, so the replies below are dereferenced without a check.

Task<RenewalRow> BillingClient::read_renewal(std::int64_t customer) {
    auto request = call(
        network_, host_, database_node_,
        MessageText(deferred_label("SELECT status FROM renewals WHERE customer={} AND period='{}'", customer, period_),
                    {{"customer", customer}}),
        [db = database_, customer, period = period_] {
            const RenewalRow found = db->read(customer, period);
            return Answer<RenewalRow>{found, deferred_label("'{}'", to_string(found.status))};
        });
    auto row = co_await request;
    co_return *row;
}

Task<std::vector<std::int64_t>> BillingClient::pending_items() {
    auto request =
        call(network_, host_, database_node_,
             deferred_label("SELECT customer FROM renewals WHERE period='{}' AND status <> 'charged'", period_),
             [db = database_, period = period_] {
                 std::vector<std::int64_t> items = db->pending(period);
                 const int rows = static_cast<int>(items.size());
                 return Answer<std::vector<std::int64_t>>{std::move(items), rows_label(rows)};
             });
    auto items = co_await request;
    co_return std::move(*items);
}

Task<int> BillingClient::insert_renewal(std::int64_t customer) {
    auto request = call(
        network_, host_, database_node_,
        MessageText(deferred_label("INSERT INTO renewals (customer, period, status) VALUES ({}, '{}', 'claimed')",
                                   customer, period_),
                    {{"customer", customer}}),
        [db = database_, customer, period = period_, client = host_.id()] {
            const int inserted = db->insert_claim(customer, period, client);
            return Answer<int>{inserted, inserted == 1 ? std::string("INSERT 0 1")
                                                       : std::string("duplicate key: renewals_customer_period_key")};
        });
    auto rows = co_await request;
    co_return *rows;
}

namespace {

// The claim's WHERE clause: the fence, and under claim-once the row's status too.
std::string claim_condition(const ClaimRule& rule, std::int64_t token) {
    std::string condition = fmt::format("fence < {}", token);
    if (!rule.once) return condition;
    if (!rule.reclaim_after) return condition + " AND status='due'";
    return condition + fmt::format(" AND (status='due' OR (status='claimed' AND claimed_at <= now() - '{}'))",
                                   format_duration(*rule.reclaim_after));
}

}  // namespace

Task<int> BillingClient::claim_renewal(std::int64_t customer, std::int64_t token) {
    auto request =
        call(network_, host_, database_node_,
             MessageText(deferred_label("UPDATE renewals SET status='claimed', fence={0}{1} WHERE customer={2} AND "
                                        "period='{3}' AND {4}",
                                        token, database_->claim_rule().once ? ", claimed_at=now()" : "", customer,
                                        period_, claim_condition(database_->claim_rule(), token)),
                         {{"customer", customer}, {"token", token}}),
             [db = database_, customer, period = period_, token, client = host_.id()] {
                 const int changed = db->claim(customer, period, token, client);
                 return Answer<int>{changed, rows_label(changed)};
             });
    auto rows = co_await request;
    co_return *rows;
}

Task<int> BillingClient::record_charged(std::int64_t customer, std::optional<std::int64_t> token) {
    MessageText statement =
        token ? deferred_label(
                    "UPDATE renewals SET status='charged', fence={0} WHERE customer={1} AND period='{2}' AND "
                    "fence <= {0}",
                    *token, customer, period_)
              : deferred_label("UPDATE renewals SET status='charged' WHERE customer={} AND period='{}'", customer,
                               period_);
    std::vector<OwnedField> about{{"customer", customer}};
    if (token) about.push_back({"token", *token});
    auto request = call(network_, host_, database_node_, MessageText(std::move(statement), std::move(about)),
                        [db = database_, customer, period = period_, token, client = host_.id()] {
                            const int changed = db->record_charged(customer, period, token, client);
                            return Answer<int>{changed, rows_label(changed)};
                        });
    auto rows = co_await request;
    co_return *rows;
}

Task<bool> BillingClient::index_built() {
    auto request =
        call(network_, host_, database_node_, fmt::format("SELECT 1 FROM index_builds WHERE hour='{}'", period_),
             [db = database_, period = period_] {
                 const bool built = db->index_built_for(period);
                 return Answer<bool>{built, built ? std::string("1 row") : std::string("0 rows")};
             });
    auto built = co_await request;
    co_return *built;
}

Task<void> BillingClient::record_index_build(Duration cpu) {
    auto request =
        call(network_, host_, database_node_,
             fmt::format("INSERT INTO index_builds (hour, cpu) VALUES ('{}', '{}')", period_, format_duration(cpu)),
             [db = database_, period = period_, cpu, client = host_.id()] {
                 db->record_index_build(period, cpu, client);
                 return Answer<bool>{true, std::string("INSERT 0 1")};
             });
    co_await request;
}

}  // namespace locksim
