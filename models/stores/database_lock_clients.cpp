// Clients of the database's own locks: an advisory lock polled with
// pg_try_advisory_lock, and a row lock that waits in the database's lock queue.
#include <fmt/format.h>

#include <functional>
#include <optional>
#include <utility>

#include "models/stores/database_locks.hpp"
#include "models/stores/pgbouncer.hpp"
#include "models/stores/store_registry.hpp"
#include "sim/duration_text.hpp"
#include "sim/rpc.hpp"

namespace locksim {
namespace {

std::string try_advisory_lock_sql(const std::string& key) {
    return fmt::format("SELECT pg_try_advisory_lock(hashtext('{}'))", key);
}

std::string try_advisory_xact_lock_sql(const std::string& key) {
    return fmt::format("BEGIN; SELECT pg_try_advisory_xact_lock(hashtext('{}'))", key);
}

std::string advisory_unlock_sql(const std::string& key) {
    return fmt::format("SELECT pg_advisory_unlock(hashtext('{}'))", key);
}

// One client's connection: its session, the statements it sends, and what a crash leaves
// behind. A dead process: its kernel closes the socket, and the database ends the session
// at once. A dead machine: nothing is sent, and the database holds the session (and its
// locks) until TCP keepalive gives up on the silent peer.
class DatabaseConnection {
public:
    DatabaseConnection(Host host, Network& network, NodeId database, DatabaseLocks& locks, const LockSpec& spec)
        : host_(host), network_(&network), database_(database), locks_(&locks), spec_(spec) {
        host.engine().on_crash(host.id(), [this] { connection_closed(); });
    }

    Task<std::int64_t> session() {
        while (!session_) {
            auto request = call(
                *network_, host_, database_, "connect",
                [locks = locks_, client = host_.id()] {
                    const std::int64_t id = locks->connect(client);
                    return Answer<std::int64_t>{id, fmt::format("session {}", id)};
                },
                spec_.request_timeout);
            session_ = co_await request;
        }
        co_return *session_;
    }

    // SELECT 1 on the session, so an idle timeout does not end it while the holder works.
    Task<ExtendResult> keep_alive() {
        if (!session_) co_return ExtendResult{ExtendResult::Outcome::refused, {}};
        const Instant sent = host_.monotonic_now();
        auto request = call(
            *network_, host_, database_, "SELECT 1",
            [locks = locks_, session = *session_] {
                const bool alive = locks->touch(session);
                return Answer<bool>{alive, alive ? "1" : "FATAL: the session has ended"};
            },
            spec_.request_timeout);
        const auto alive = co_await request;
        if (!alive) co_return ExtendResult{ExtendResult::Outcome::no_reply, {}};
        if (!*alive) {
            session_.reset();
            co_return ExtendResult{ExtendResult::Outcome::refused, {}};
        }
        co_return ExtendResult{ExtendResult::Outcome::extended, valid_from(sent)};
    }

    // With job_statements "lock-session": a job statement on this session is activity on it,
    // fails if the database has ended it, and runs inside its transaction if one is open.
    StatementSessionOf job_statement_session() {
        if (spec_.job_statements != JobStatements::lock_session) return {};
        return [this]() -> StatementSession {
            // Forgotten: the connection the lock and the job share has closed, so the
            // statement fails on it as the lock's own would. (None yet cannot be: the job
            // runs its statements once it holds the lock.)
            if (!session_) return {.ended = true};
            if (!locks_->touch(*session_)) return {.ended = true};
            return {.transaction = locks_->open_transaction(*session_)};
        };
    }

    // COMMIT: the transaction's locks go, and what it wrote stands.
    Task<void> commit(std::int64_t session) {
        auto request = call(
            *network_, host_, database_, "COMMIT",
            [locks = locks_, session] {
                const bool done = locks->commit(session);
                return Answer<bool>{done, done ? "COMMIT" : "FATAL: no session"};
            },
            spec_.request_timeout);
        co_await request;
    }

    // Until when the holder may believe: for ever without an idle timeout.
    Instant valid_from(Instant sent) const {
        const auto timeout = holder_idle_timeout(spec_);
        return timeout ? sent + *timeout : never;
    }
    void forget_session() { session_.reset(); }

    Host host_;
    Network* network_;
    NodeId database_;
    DatabaseLocks* locks_;
    LockSpec spec_;

private:
    void connection_closed() {
        if (!session_) return;
        if (host_.engine().crash_kind(host_.id()) == CrashKind::machine) {
            end_when_keepalive_gives_up(host_.engine(), *locks_, database_, *session_, spec_.tcp_keepalives,
                                        host_.engine().monotonic_now(database_));
        } else {
            network_->send(host_.id(), database_, "connection closed (process died)",
                           [locks = locks_, session = *session_] { locks->end_session(session, "connection closed"); });
        }
        session_.reset();
    }

    std::optional<std::int64_t> session_;
};

class AdvisoryLockClient final : public PollingLockClient {
public:
    AdvisoryLockClient(Host host, Network& network, NodeId database, DatabaseLocks& locks, const LockSpec& spec)
        : PollingLockClient(host, spec.retry), connection_(host, network, database, locks, spec) {}

    Task<ExtendResult> extend(const Lease&) override { return connection_.keep_alive(); }
    StatementSessionOf job_statement_session() override { return connection_.job_statement_session(); }

    Task<void> release(const Lease& lease) override {
        const std::int64_t session = co_await connection_.session();
        if (connection_.spec_.advisory_in_transaction) {
            co_await connection_.commit(session);
            co_return;
        }
        auto request = call(
            *connection_.network_, host_, connection_.database_, advisory_unlock_sql(lease.key),
            [locks = connection_.locks_, session, key = lease.key] {
                const auto unlocked = locks->advisory_unlock(session, key);
                return Answer<std::optional<bool>>{unlocked, unlocked && *unlocked ? "t" : "f"};
            },
            connection_.spec_.request_timeout);
        co_await request;
    }

protected:
    Task<std::optional<Lease>> try_acquire() override {
        const std::int64_t session = co_await connection_.session();
        const Instant sent = host_.monotonic_now();
        const std::string key = connection_.spec_.key;
        const bool in_transaction = connection_.spec_.advisory_in_transaction;
        auto request = call(
            *connection_.network_, host_, connection_.database_,
            in_transaction ? try_advisory_xact_lock_sql(key) : try_advisory_lock_sql(key),
            [locks = connection_.locks_, session, key, in_transaction] {
                // A refused transaction lock leaves nothing open: the client's ROLLBACK is not drawn.
                const auto taken = locks->try_advisory_lock(session, key, in_transaction);
                return Answer<std::optional<bool>>{taken, !taken ? "FATAL: no session" : *taken ? "t" : "f"};
            },
            connection_.spec_.request_timeout);
        const auto taken = co_await request;
        if (!taken) co_return std::nullopt;
        if (!*taken) {
            connection_.forget_session();  // the database ended it: connect again next time
            co_return std::nullopt;
        }
        if (!**taken) co_return std::nullopt;
        co_return Lease{key, fmt::format("session {}", session), std::nullopt, connection_.valid_from(sent)};
    }

private:
    DatabaseConnection connection_;
};

// An advisory lock taken through the pooler: the same statements, sent to PgBouncer, each
// run on whatever server connection it lends. Nothing ties the lock to this client: a
// release may land on another session (and unlock nothing), another client lent the
// holding session holds the lock too, and the lock goes when PgBouncer closes that
// connection. The pooler keeps its server connections when a client dies.
class PooledAdvisoryLockClient final : public PollingLockClient {
public:
    PooledAdvisoryLockClient(Host host, Network& network, PgBouncer& pooler, DatabaseLocks& locks, const LockSpec& spec)
        : PollingLockClient(host, spec.retry), network_(network), pooler_(pooler), locks_(locks), spec_(spec) {}

    Task<ExtendResult> extend(const Lease&) override {
        auto request = call_through<bool>(
            network_, host_, pooler_, "SELECT 1",
            [](std::int64_t session) {
                return Answer<bool>{true, fmt::format("1 (server session {})", session)};
            },
            Answer<bool>{false, "ERROR: server conn crashed?"}, spec_.request_timeout);
        const auto alive = co_await request;
        if (!alive || !*alive) co_return ExtendResult{ExtendResult::Outcome::no_reply, {}};
        co_return ExtendResult{ExtendResult::Outcome::extended, never};
    }

    // With job_statements "lock-session" the job's statements go through the pooler too,
    // each a transaction on whichever connection it lends.
    StatementRelay* job_statement_relay() override {
        return spec_.job_statements == JobStatements::lock_session ? &pooler_ : nullptr;
    }

    Task<void> release(const Lease& lease) override {
        auto request = call_through<std::optional<bool>>(
            network_, host_, pooler_, advisory_unlock_sql(lease.key),
            [locks = &locks_, key = lease.key](std::int64_t session) {
                const auto unlocked = locks->advisory_unlock(session, key);
                return Answer<std::optional<bool>>{
                    unlocked, fmt::format("{} (server session {})", unlocked && *unlocked ? "t" : "f", session)};
            },
            Answer<std::optional<bool>>{std::nullopt, "ERROR: server conn crashed?"}, spec_.request_timeout);
        co_await request;
    }

protected:
    Task<std::optional<Lease>> try_acquire() override {
        const std::string key = spec_.key;
        auto request = call_through<std::pair<bool, std::int64_t>>(
            network_, host_, pooler_, try_advisory_lock_sql(key),
            [locks = &locks_, key](std::int64_t session) {
                const auto taken = locks->try_advisory_lock(session, key);
                const bool granted = taken && *taken;
                return Answer<std::pair<bool, std::int64_t>>{
                    {granted, session}, fmt::format("{} (server session {})", granted ? "t" : "f", session)};
            },
            Answer<std::pair<bool, std::int64_t>>{{false, 0}, "ERROR: server conn crashed?"}, spec_.request_timeout);
        const auto taken = co_await request;
        if (!taken || !taken->first) co_return std::nullopt;
        co_return Lease{key, fmt::format("server session {}", taken->second), std::nullopt, never};
    }

private:
    Network& network_;
    PgBouncer& pooler_;
    DatabaseLocks& locks_;
    LockSpec spec_;
};

Task<Answer<bool>> serve_lock_row(DatabaseLocks* locks, std::int64_t session, std::string row) {
    const bool locked = co_await locks->lock_row(session, std::move(row));
    co_return Answer<bool>{locked, locked ? "1 row (locked)" : "FATAL: terminating connection"};
}

class RowLockClient final : public LockStoreClient {
public:
    RowLockClient(Host host, Network& network, NodeId database, DatabaseLocks& locks, const LockSpec& spec)
        : connection_(host, network, database, locks, spec) {}

    Task<Lease> acquire() override {
        for (;;) {
            const std::int64_t session = co_await connection_.session();
            const std::string row = connection_.spec_.key;
            // No timeout: the statement waits in the database's lock queue as long as it takes.
            auto request =
                call(*connection_.network_, connection_.host_, connection_.database_,
                     fmt::format("BEGIN; SELECT * FROM jobs WHERE name='{}' FOR UPDATE", row),
                     [locks = connection_.locks_, session, row] { return serve_lock_row(locks, session, row); });
            const auto locked = co_await request;
            // The statement waited in the queue for as long as it took; the session's idle
            // clock starts again when it returns.
            const Instant answered = connection_.host_.monotonic_now();
            if (locked && *locked)
                co_return Lease{row, fmt::format("session {}", session), std::nullopt,
                                connection_.valid_from(answered)};
            connection_.forget_session();
        }
    }

    Task<ExtendResult> extend(const Lease&) override { return connection_.keep_alive(); }
    StatementSessionOf job_statement_session() override { return connection_.job_statement_session(); }

    Task<void> release(const Lease&) override {
        const std::int64_t session = co_await connection_.session();
        co_await connection_.commit(session);
    }

private:
    DatabaseConnection connection_;
};

// `Client`: the lock a job server takes on a connection of its own; an advisory lock
// through PgBouncer takes it on whichever connection the pooler lends.
template <class Client>
class DatabaseLockDeployment final : public StoreDeployment {
public:
    explicit DatabaseLockDeployment(const StoreContext& context)
        : context_(context),
          database_(context.node(context.world.billing_node)),
          locks_(Host(context.engine, database_),
                 {context.world.lock.idle_session_timeout, context.world.lock.idle_in_transaction_timeout}) {
        const LockSpec& lock = context.world.lock;
        if (lock.pooler)
            pooler_.emplace(Host(context.engine, context.node(context.world.pooler_node)), context.network, database_,
                            locks_, *lock.pooler, lock.tcp_keepalives);
    }

    using StoreDeployment::client_for;
    std::unique_ptr<LockStoreClient> client_for(const Host& server, const LockSpec& lock) override {
        if (pooler_)
            return std::make_unique<PooledAdvisoryLockClient>(server, context_.network, *pooler_, locks_, lock);
        return std::make_unique<Client>(server, context_.network, database_, locks_, lock);
    }

    void watch_transactions(TransactionEnd watcher) override { locks_.watch_transactions(std::move(watcher)); }

private:
    const LockSpec& world_lock() const override { return context_.world.lock; }
    StoreContext context_;
    NodeId database_;
    DatabaseLocks locks_;
    std::optional<PgBouncer> pooler_;  // on a node of its own, between the servers and the database
};

}  // namespace

std::unique_ptr<StoreDeployment> deploy_advisory_lock(const StoreContext& context) {
    return std::make_unique<DatabaseLockDeployment<AdvisoryLockClient>>(context);
}

std::unique_ptr<StoreDeployment> deploy_row_lock(const StoreContext& context) {
    return std::make_unique<DatabaseLockDeployment<RowLockClient>>(context);
}

}  // namespace locksim
