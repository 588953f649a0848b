#pragma once
// Locks kept by the database the job writes to (docs/models.md, "Database locks"): a
// session-level advisory lock, or a row lock taken with SELECT … FOR UPDATE and held
// until the transaction ends. Neither has a TTL: the database holds the lock for the
// session, and releases it when the session ends — at unlock or COMMIT, when the
// client's connection closes because its process died, or when the database ends a
// session that sat idle longer than its idle timeout, if one is set: idle_session_timeout
// outside a transaction (an advisory lock's holder), idle_in_transaction_session_timeout
// inside one (a FOR UPDATE holder). As PostgreSQL, it judges idleness on the wall clock
// when its timer fires, so a step back of the clock postpones the end.
// Advisory locks are re-entrant: a session that takes one twice must unlock it twice.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "models/stores/lock_spec.hpp"
#include "models/stores/store_deployment.hpp"
#include "sim/condition.hpp"

namespace locksim {

class DatabaseLocks {
public:
    struct IdleTimeouts {
        std::optional<Duration> session;         // idle outside a transaction
        std::optional<Duration> in_transaction;  // idle inside one
    };
    DatabaseLocks(Host host, IdleTimeouts idle_timeouts);

    // A new session for `client`; every statement below names it.
    std::int64_t connect(NodeId client);
    // A pooler hands an open session to `client` for its next transaction.
    void lend(std::int64_t session, NodeId client);
    // Whether the session is still open (a pooler learns at once when one ends).
    bool is_open(std::int64_t session) const { return sessions_.contains(session); }
    // Any statement: false if the session has ended. Counts as activity.
    bool touch(std::int64_t session);
    // When a statement of the session last arrived, on this host's monotonic clock: what
    // TCP keepalive counts a silent client's idleness from. Nothing once it has ended.
    std::optional<Instant> last_heard(std::int64_t session) const;

    // pg_try_advisory_lock: true if taken, or already ours (then it counts once more).
    // `in_transaction`: pg_try_advisory_xact_lock after BEGIN, the transaction's until COMMIT.
    std::optional<bool> try_advisory_lock(std::int64_t session, const std::string& key, bool in_transaction = false);
    // pg_advisory_unlock: true if it was ours; the lock goes at the last unlock.
    std::optional<bool> advisory_unlock(std::int64_t session, const std::string& key);

    // BEGIN; SELECT … FOR UPDATE: waits in line until the row is free; false if the
    // session ended while it waited.
    Task<bool> lock_row(std::int64_t session, std::string row);
    // COMMIT: ends the transaction and releases its row locks and transaction advisory locks.
    bool commit(std::int64_t session);
    // The session's open transaction, named by the session, if it is inside one.
    std::optional<std::int64_t> open_transaction(std::int64_t session) const;
    // Told at every COMMIT (true) and every transaction the end of its session rolls back.
    void watch_transactions(std::function<void(std::int64_t session, bool committed)> watcher) {
        transaction_ended_ = std::move(watcher);
    }

    // The client's connection closed: the session ends and its locks go with it.
    void end_session(std::int64_t session, std::string_view why);

private:
    struct Session {
        NodeId client;
        Instant last_activity;         // this host's monotonic clock
        Instant last_activity_wall;    // and its wall clock
        Instant last_heard;            // the last statement's arrival (a busy session is active without one)
        bool waiting = false;          // a statement waits for a lock: the session is busy, not idle
        bool in_transaction = false;   // from BEGIN to COMMIT
        std::uint64_t idle_check = 0;  // the newest idle check armed
    };
    struct Held {
        std::int64_t session = 0;
        NodeId client;
        int count = 1;             // advisory: how many times the session took it
        bool transaction = false;  // advisory: a transaction's (pg_try_advisory_xact_lock), gone at COMMIT
    };
    void mark_active(Session& session) const;
    std::optional<Duration> idle_timeout_of(const Session& session) const;
    Duration idle_time_left(const Session& session) const;
    void arm_idle_check(std::int64_t session);
    void set_in_transaction(std::int64_t session, bool in_transaction);
    void release(std::map<std::string, Held>& locks, const std::string& key, NodeId by, bool session_ended);

    Host host_;
    IdleTimeouts idle_timeouts_;
    std::int64_t next_session_ = 1;
    std::map<std::int64_t, Session> sessions_;
    std::map<std::string, Held> advisory_;
    std::map<std::string, Held> rows_;
    Condition row_released_;
    std::function<void(std::int64_t, bool)> transaction_ended_;
};

// The database's kernel resets the connection of a client whose machine died at `died`
// (the database's monotonic clock) once TCP keepalive has probed it unanswered: then the
// session ends, and its locks with it.
void end_when_keepalive_gives_up(Engine& engine, DatabaseLocks& locks, NodeId database, std::int64_t session,
                                 TcpKeepalives keepalives, Instant died);

}  // namespace locksim
