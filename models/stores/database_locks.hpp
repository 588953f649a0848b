#pragma once
// Locks kept by the database the job writes to (seed §5, MODELS.md "Databases"): a
// session-level advisory lock, or a row lock taken with SELECT … FOR UPDATE and held
// until the transaction ends. Neither has a TTL: the database holds the lock for the
// session, and releases it when the session ends — at unlock or COMMIT, when the
// client's connection closes because its process died, or when the database ends a
// session that sat idle longer than its idle timeout (idle_session_timeout,
// idle_in_transaction_session_timeout), if one is set.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/stores/store_deployment.hpp"
#include "sim/condition.hpp"

namespace locksim {

class DatabaseLocks {
public:
    DatabaseLocks(Host host, std::optional<Duration> idle_timeout);

    // A new session for `client`; every statement below names it.
    std::int64_t connect(NodeId client);
    // Any statement: false if the session has ended. Counts as activity.
    bool touch(std::int64_t session);

    // pg_try_advisory_lock: true if taken (or already ours).
    std::optional<bool> try_advisory_lock(std::int64_t session, const std::string& key);
    std::optional<bool> advisory_unlock(std::int64_t session, const std::string& key);

    // SELECT … FOR UPDATE: waits in line until the row is free; false if the session
    // ended while it waited.
    Task<bool> lock_row(std::int64_t session, std::string row);
    // COMMIT: ends the transaction and releases its row locks.
    bool commit(std::int64_t session);

    // The client's connection closed: the session ends and its locks go with it.
    void end_session(std::int64_t session, std::string_view why);

private:
    struct Session {
        NodeId client;
        Instant last_activity;  // this host's monotonic clock
        bool waiting = false;   // a statement waits for a lock: the session is busy, not idle
    };
    struct Held {
        std::int64_t session = 0;
        NodeId client;
    };
    void arm_idle_check(std::int64_t session);
    void release(std::map<std::string, Held>& locks, const std::string& key, NodeId by, bool session_ended);

    Host host_;
    std::optional<Duration> idle_timeout_;
    std::int64_t next_session_ = 1;
    std::map<std::int64_t, Session> sessions_;
    std::map<std::string, Held> advisory_;
    std::map<std::string, Held> rows_;
    Condition row_released_;
};

}  // namespace locksim
