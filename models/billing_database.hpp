#pragma once
// The billing database's renewals table: one row per customer and period, and the
// conditional writes that fence it. A fenced write names its token and changes the
// row only if no newer token has written it; zero rows tells the writer it lost the lock.
//
//   UPDATE renewals SET status='claimed', fence=33
//    WHERE customer=42 AND period='2026-10' AND fence < 33
//
// A renewal still due stands for a row not inserted yet: with a unique key on (customer,
// period), the first INSERT wins and every later one fails (let the database decide).
// The same database remembers for which hour the search index was last built.
//
// A statement may run inside a transaction (a FOR UPDATE holder's, when the job's statements
// share its session): its writes are the transaction's until it ends. Other sessions read
// the rows as they were; a COMMIT keeps the writes, the end of the session rolls them back.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "models/requests_in_flight.hpp"
#include "sim/host.hpp"

namespace locksim {

enum class RenewalStatus { due, claimed, charged };

const char* to_string(RenewalStatus status);

struct RenewalRow {
    RenewalStatus status = RenewalStatus::due;
    std::int64_t fence = 0;  // the highest token that has written this row
    Instant claimed_at;      // by the database's wall clock, when last claimed
};

// How a fenced claim treats a row that is no longer due (ProtectionSpec). Per-row fencing
// lets any higher token claim it; claim-once lets none, unless a claim has stood unfinished
// for `reclaim_after` and its claimer is presumed dead.
//
//   UPDATE renewals SET status='claimed', fence=34, claimed_at=now()
//    WHERE customer=42 AND period='2026-10' AND fence < 34
//      AND (status='due' OR (status='claimed' AND claimed_at <= now() - interval '10m'))
struct ClaimRule {
    bool once = false;
    std::optional<Duration> reclaim_after;
};

class BillingDatabase {
public:
    // A row due for every customer in every period (a recurring job's runs have one each).
    BillingDatabase(Host host, const std::vector<std::int64_t>& customers, const std::vector<std::string>& periods,
                    ClaimRule claim_rule = {});

    RenewalRow read(std::int64_t customer, const std::string& period);
    // status='claimed', fence=token WHERE ... AND fence < token, and the claim rule
    int claim(std::int64_t customer, const std::string& period, std::int64_t token, NodeId client);
    const ClaimRule& claim_rule() const { return claim_rule_; }
    // INSERT ... status='claimed': 1 row for the first writer, 0 (a unique violation) after
    int insert_claim(std::int64_t customer, const std::string& period, NodeId client);
    // status='charged' WHERE ...; with a token also fence=token ... AND fence <= token
    int record_charged(std::int64_t customer, const std::string& period, std::optional<std::int64_t> token,
                       NodeId client);

    // A leader loop's queue: a new item, due until sent.
    void add_item(std::int64_t item, const std::string& period);
    // SELECT … WHERE status <> 'charged': the items not yet sent, in id order, each read.
    std::vector<std::int64_t> pending(const std::string& period);

    bool index_built_for(const std::string& period);
    void record_index_build(const std::string& period, Duration processor_time, NodeId client);

    // Statements on their way here: one whose client gave up can still write when it lands.
    RequestsInFlight& statements() { return statements_; }

    // The transaction the statement now running belongs to, from its start to its end
    // (BillingClient runs each statement within one): none, it commits as it runs.
    class StatementScope {
    public:
        StatementScope(BillingDatabase& database, std::optional<std::int64_t> transaction) : database_(database) {
            database_.statement_transaction_ = transaction;
        }
        ~StatementScope() { database_.statement_transaction_.reset(); }
        StatementScope(const StatementScope&) = delete;
        StatementScope& operator=(const StatementScope&) = delete;

    private:
        BillingDatabase& database_;
    };
    // COMMIT keeps what the transaction wrote; a rollback puts each row back as it was.
    void end_transaction(std::int64_t transaction, bool committed);

private:
    RenewalRow* row(std::int64_t customer, const std::string& period);
    void record_write(std::int64_t customer, const std::string& period, RenewalStatus status,
                      std::optional<std::int64_t> token, int rows, NodeId client);

    bool claimable(const RenewalRow& row, std::int64_t token) const;
    // Before a write to `key`: inside a transaction, the row as it was, to roll back to.
    void keep_before(const std::pair<std::int64_t, std::string>& key, const RenewalRow& before, NodeId client);
    // The row as this statement sees it: another transaction's writes not yet committed are not.
    RenewalRow visible(std::int64_t customer, const std::string& period);

    // A write a transaction has made and not yet committed: whose, and the row before it.
    struct Uncommitted {
        std::int64_t transaction = 0;
        NodeId client;
        std::optional<RenewalRow> before;  // none: an index build, which only adds
    };

    Host host_;
    ClaimRule claim_rule_;
    // Every (customer, period) of these has a row, due until written: a row is stored only
    // once it is written, so a job of many customers and runs costs what it touches.
    std::set<std::int64_t> customers_;
    std::set<std::string> periods_;
    std::map<std::pair<std::int64_t, std::string>, RenewalRow> renewals_;  // the rows written
    std::set<std::string> index_builds_;                                   // periods the index has been built for
    RequestsInFlight statements_;
    std::optional<std::int64_t> statement_transaction_;
    std::map<std::pair<std::int64_t, std::string>, Uncommitted> uncommitted_;  // rows a transaction wrote
    std::map<std::string, Uncommitted> uncommitted_builds_;                    // index builds, by period
};

}  // namespace locksim
