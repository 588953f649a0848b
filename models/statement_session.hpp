#pragma once
// Where one of the job's statements ran at the database, when the job's statements share
// the lock's session (job_statements "lock-session"): whether that session had already
// ended — the database closed its connection, so the statement fails — and the open
// transaction it ran inside, if any (a FOR UPDATE holder's, from its BEGIN to its COMMIT),
// whose writes commit or roll back with it. The default is a connection of the job's own,
// each statement committed as it runs.
#include <cstdint>
#include <functional>
#include <optional>

namespace locksim {

struct StatementSession {
    bool ended = false;
    std::optional<std::int64_t> transaction;
};

// Run at the database with each of the job's statements (LockStoreClient::job_statement_session).
using StatementSessionOf = std::function<StatementSession()>;

}  // namespace locksim
