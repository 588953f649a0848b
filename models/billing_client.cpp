#include "models/billing_client.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "models/job_error.hpp"
#include "models/sql_text.hpp"
#include "sim/duration_text.hpp"
#include "sim/rpc.hpp"

namespace locksim {

BillingClient::BillingClient(Host host, Network& network, NodeId database_node, BillingDatabase* database,
                             std::string period, const Vocabulary& words, StatementSessionOf statement_session,
                             StatementRelay* relay, std::optional<Duration> read_timeout)
    : host_(host),
      network_(network),
      database_node_(database_node),
      database_(database),
      period_(std::move(period)),
      names_{sql_name(words.table()), sql_name(words.item), sql_name(words.effected())},
      statement_session_(std::move(statement_session)),
      relay_(relay),
      read_timeout_(read_timeout) {}

void BillingClient::unanswered(bool reset, std::string_view statement, std::optional<std::int64_t> item) {
    const NodeId sent_to = relay_ != nullptr ? relay_->node() : database_node_;
    const std::string& database = network_.engine().trace().node_name(sent_to);
    const std::string about = item ? fmt::format(" for {} {}", names_.item, *item) : std::string();
    if (reset)
        throw JobError(
            fmt::format("the connection to {} was reset before the {}{} was answered", database, statement, about),
            item);
    // At its own deadline the client closes the connection, as database drivers do: the
    // statement may still arrive (the kernel retransmits what the socket held), and the
    // next one goes on a new connection.
    network_.close_stream(host_.id(), sent_to);
    throw JobError(fmt::format("{} did not answer the {}{} within the {} read timeout", database, statement, about,
                               format_duration(*read_timeout_)),
                   item);
}

void BillingClient::session_ended(std::string_view statement, std::optional<std::int64_t> item) {
    const std::string& database = network_.engine().trace().node_name(database_node_);
    const std::string about = item ? fmt::format(" for {} {}", names_.item, *item) : std::string();
    if (relay_ != nullptr)
        throw JobError(fmt::format("{} lost its connection to {} under the {}{}",
                                   network_.engine().trace().node_name(relay_->node()), database, statement, about),
                       item);
    throw JobError(fmt::format("{} had ended the lock's session, and with it the connection the {}{} went on", database,
                               statement, about),
                   item);
}

Task<RenewalRow> BillingClient::read_renewal(std::int64_t customer) {
    auto request =
        statement(MessageText(MessageText::made_by([names = &names_, customer, period = period_] {
                                  return fmt::format("SELECT status FROM {} WHERE {}={} AND period='{}'", names->table,
                                                     names->item, customer, period);
                              }),
                              {{"customer", customer}}),
                  at_database([db = database_, customer, period = period_, names = &names_] {
                      const RenewalRow found = db->read(customer, period);
                      return Answer<RenewalRow>{found, MessageText::made_by([names, status = found.status] {
                                                    return fmt::format("'{}'", status == RenewalStatus::charged
                                                                                   ? names->done
                                                                                   : std::string(to_string(status)));
                                                })};
                  }));
    auto row = co_await request;
    co_return answered(std::move(row), request.was_reset(), "SELECT", customer);
}

Task<std::vector<std::int64_t>> BillingClient::pending_items() {
    auto request = statement(MessageText::made_by([names = &names_, period = period_] {
                                 return fmt::format("SELECT {} FROM {} WHERE period='{}' AND status <> '{}'",
                                                    names->item, names->table, period, names->done);
                             }),
                             at_database([db = database_, period = period_] {
                                 std::vector<std::int64_t> items = db->pending(period);
                                 const int rows = static_cast<int>(items.size());
                                 return Answer<std::vector<std::int64_t>>{std::move(items), rows_label(rows)};
                             }));
    auto items = co_await request;
    co_return answered(std::move(items), request.was_reset(), "SELECT", std::nullopt);
}

Task<int> BillingClient::insert_renewal(std::int64_t customer) {
    auto request = call(
        network_, host_, database_node_,
        MessageText(MessageText::made_by([names = &names_, customer, period = period_] {
                        return fmt::format("INSERT INTO {} ({}, period, status) VALUES ({}, '{}', 'claimed')",
                                           names->table, names->item, customer, period);
                    }),
                    {{"customer", customer}}),
        at_database([db = database_, customer, period = period_, client = host_.id(), names = &names_] {
            const int inserted = db->insert_claim(customer, period, client);
            if (inserted == 1) return Answer<int>{inserted, std::string("INSERT 0 1")};
            return Answer<int>{inserted, MessageText::made_by([names] {
                                   return fmt::format("duplicate key: {}_{}_period_key", names->table, names->item);
                               })};
        }),
        read_timeout_);
    auto rows = co_await request;
    co_return answered(std::move(rows), request.was_reset(), "INSERT", customer);
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
    auto request = statement(
        MessageText(MessageText::made_by([names = &names_, db = database_, token, customer, period = period_] {
                        return fmt::format(
                            "UPDATE {0} SET status='claimed', fence={1}{2} WHERE {3}={4} AND "
                            "period='{5}' AND {6}",
                            names->table, token, db->claim_rule().once ? ", claimed_at=now()" : "", names->item,
                            customer, period, claim_condition(db->claim_rule(), token));
                    }),
                    {{"customer", customer}, {"token", token}}),
        at_database([db = database_, customer, period = period_, token, client = host_.id()] {
            const int changed = db->claim(customer, period, token, client);
            return Answer<int>{changed, rows_label(changed)};
        }));
    auto rows = co_await request;
    co_return answered(std::move(rows), request.was_reset(), "UPDATE", customer);
}

Task<int> BillingClient::record_charged(std::int64_t customer, std::optional<std::int64_t> token) {
    MessageText text = MessageText::made_by([names = &names_, token, customer, period = period_] {
        std::string text = fmt::format("UPDATE {} SET status='{}'", names->table, names->done);
        if (token) text += fmt::format(", fence={}", *token);
        text += fmt::format(" WHERE {}={} AND period='{}'", names->item, customer, period);
        if (token) text += fmt::format(" AND fence <= {}", *token);
        return text;
    });
    std::vector<OwnedField> about{{"customer", customer}};
    if (token) about.push_back({"token", *token});
    auto request = statement(MessageText(std::move(text), std::move(about)),
                             at_database([db = database_, customer, period = period_, token, client = host_.id()] {
                                 const int changed = db->record_charged(customer, period, token, client);
                                 return Answer<int>{changed, rows_label(changed)};
                             }));
    auto rows = co_await request;
    co_return answered(std::move(rows), request.was_reset(), "UPDATE", customer);
}

Task<bool> BillingClient::index_built() {
    auto request = statement(fmt::format("SELECT 1 FROM index_builds WHERE hour='{}'", period_),
                             at_database([db = database_, period = period_] {
                                 const bool built = db->index_built_for(period);
                                 return Answer<bool>{built, built ? std::string("1 row") : std::string("0 rows")};
                             }));
    auto built = co_await request;
    co_return answered(std::move(built), request.was_reset(), "SELECT", std::nullopt);
}

Task<void> BillingClient::record_index_build(Duration cpu) {
    auto request = statement(
        fmt::format("INSERT INTO index_builds (hour, cpu) VALUES ('{}', '{}')", period_, format_duration(cpu)),
        at_database([db = database_, period = period_, cpu, client = host_.id()] {
            db->record_index_build(period, cpu, client);
            return Answer<bool>{true, std::string("INSERT 0 1")};
        }));
    auto recorded = co_await request;
    answered(std::move(recorded), request.was_reset(), "INSERT", std::nullopt);
}

}  // namespace locksim
