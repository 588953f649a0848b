#pragma once
// The job's SQL connection to the billing database: each method is one statement, sent
// as a request and answered on the database's node, with the text a SQL client prints.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/billing_database.hpp"
#include "models/statement_relay.hpp"
#include "models/statement_session.hpp"
#include "models/vocabulary.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/rpc.hpp"
#include "sim/task.hpp"

namespace locksim {

class BillingClient {
public:
    // `period` is the billing period (or the index hour) every statement names; `words`
    // name the table, its item column and the done status in the statements' text.
    // `statement_session` runs at the database with every statement (empty: a connection of
    // the job's own): a statement on a session that has ended fails with a JobError. With a
    // `relay` (the lock's pooler) every statement goes through it.
    // With a `read_timeout`, a statement whose answer has not come that long after it was
    // sent fails; so does one whose connection is reset. Either throws JobError.
    BillingClient(Host host, Network& network, NodeId database_node, BillingDatabase* database, std::string period,
                  const Vocabulary& words = Vocabulary::defaults(), StatementSessionOf statement_session = {},
                  StatementRelay* relay = nullptr, std::optional<Duration> read_timeout = std::nullopt);

    // SELECT status FROM renewals …
    Task<RenewalRow> read_renewal(std::int64_t customer);
    // SELECT customer FROM renewals WHERE status <> 'charged': a leader loop's pending
    // items, in id order.
    Task<std::vector<std::int64_t>> pending_items();
    // INSERT INTO renewals … 'claimed': 1 row, or 0 when the unique key says it exists.
    Task<int> insert_renewal(std::int64_t customer);
    // UPDATE … SET status='claimed', fence=token … AND fence < token: rows changed.
    Task<int> claim_renewal(std::int64_t customer, std::int64_t token);
    // UPDATE … SET status='charged' (AND fence <= token when fenced): rows changed.
    Task<int> record_charged(std::int64_t customer, std::optional<std::int64_t> token);
    // SELECT 1 FROM index_builds WHERE hour = period.
    Task<bool> index_built();
    // INSERT INTO index_builds: this hour's build and the CPU it took.
    Task<void> record_index_build(Duration cpu);

    // Each run of a recurring job renews a period of its own.
    void begin_period(std::string period) { period_ = std::move(period); }

private:
    // `work` as run at the database, with the statement's activity on the lock's session;
    // in flight from now until it runs there (BillingDatabase::statements).
    // Its answer is none when the lock's session it shares had ended: the database had closed
    // that connection. Inside the session's transaction its writes are the transaction's.
    template <class Work>
    auto at_database(Work work) const {
        return [work = std::move(work), session_of = &statement_session_, database = database_,
                statement = database_->statements().sent()] {
            using Reply = decltype(work().value);
            database->statements().arrived(statement);
            const StatementSession session = *session_of ? (*session_of)() : StatementSession{};
            if (session.ended)
                return Answer<std::optional<Reply>>{std::nullopt, "FATAL: terminating connection (the session ended)"};
            const BillingDatabase::StatementScope scope(*database, session.transaction);
            Answer<Reply> answer = work();
            return Answer<std::optional<Reply>>{std::move(answer.value), std::move(answer.label)};
        };
    }

    // The statement's request: to the database, or through the relay. A statement the relay
    // could not run (its server connection failed under it) is answered as one on an ended
    // session.
    template <class AtDatabase>
    auto statement(MessageText label, AtDatabase at_database) {
        using Reply = decltype(at_database().value);
        if (relay_ == nullptr)
            return call(network_, host_, database_node_, std::move(label), std::move(at_database), read_timeout_);
        return call_through<Reply>(
            network_, host_, *relay_, std::move(label),
            [at_database = std::move(at_database)](std::int64_t) { return at_database(); },
            Answer<Reply>{Reply{}, "ERROR: server conn crashed?"}, read_timeout_);
    }

    // The statement's result, or the error the job's code sees: no answer (`reset`: its
    // connection was reset), or the session it shared had ended. `statement` is its verb
    // ("UPDATE"), `item` the one it is about, if any.
    template <class Reply>
    Reply answered(std::optional<std::optional<Reply>> reply, bool reset, std::string_view statement,
                   std::optional<std::int64_t> item) {
        if (!reply) unanswered(reset, statement, item);
        if (!*reply) session_ended(statement, item);
        return std::move(**reply);
    }
    [[noreturn]] void unanswered(bool reset, std::string_view statement, std::optional<std::int64_t> item);
    [[noreturn]] void session_ended(std::string_view statement, std::optional<std::int64_t> item);

    Host host_;
    Network& network_;
    NodeId database_node_;
    BillingDatabase* database_;
    std::string period_;
    // The statements' names for the scenario's words: "batches", "batch", 'transferred'.
    struct SqlNames {
        std::string table;
        std::string item;
        std::string done;
    };
    SqlNames names_;
    StatementSessionOf statement_session_;
    StatementRelay* relay_ = nullptr;
    std::optional<Duration> read_timeout_;
};

}  // namespace locksim
