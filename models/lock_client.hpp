#pragma once
// The wire protocol of one kind of lock store, as its client library speaks it. What
// every store shares around it (belief, renewal, release) lives in LockHolder.
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>

#include "models/statement_session.hpp"
#include "models/stores/lock_spec.hpp"
#include "sim/host.hpp"
#include "sim/random.hpp"
#include "sim/task.hpp"
#include "sim/time.hpp"

namespace locksim {

class StatementRelay;  // models/statement_relay.hpp

struct Lease {
    std::string key;
    std::string value;                  // what identifies this holder at the store
    std::optional<std::int64_t> token;  // a fencing token, where the store hands one out
    Instant valid_until;                // on the holder's monotonic clock: after this, assume it is gone
};

struct ExtendResult {
    enum class Outcome { extended, refused, no_reply };
    Outcome outcome = Outcome::no_reply;
    Instant valid_until;  // when extended
    // refused: why, where the store's own "no" is not it (a Kubernetes leader gives up when
    // no renewal went through in time, whether refused or unanswered). Empty: the store
    // said the value is no longer ours.
    std::string why = {};
};

class LockStoreClient {
public:
    virtual ~LockStoreClient() = default;

    // Returns once the lock is ours (a store may keep the caller waiting for ever).
    virtual Task<Lease> acquire() = 0;
    // One attempt: the lease, or nullopt when the lock is taken. Only stores that poll
    // can say "taken" without queueing the caller; the loader allows a job that skips
    // when refused with those alone.
    virtual Task<std::optional<Lease>> acquire_once() {
        throw std::logic_error("a store that queues its waiters was asked for one attempt");
    }
    // Keeps the lease alive: extends the lock while it is still ours, or (consensus
    // stores) keeps the session alive. `refused` means the lease is gone.
    virtual Task<ExtendResult> extend(const Lease& lease) = 0;
    virtual Task<void> release(const Lease& lease) = 0;

    // A client library that watches its lock while it holds it (Consul's api.Lock) learns
    // of a loss when it happens, not at its next renewal: watch_for_loss returns, with why,
    // once the lock is no longer the lease's. The others never watch.
    virtual bool watches_lock() const { return false; }
    virtual Task<std::string> watch_for_loss(const Lease&) {
        throw std::logic_error("a store client that does not watch its lock was asked to");
    }

    // What each of the job's own statements does to the lock and where it runs, at the
    // database with the statement, when they share the lock's connection (a database lock
    // with job_statements "lock-session"): activity on the session, which may have ended or
    // be inside a transaction. Empty when they run on a connection of their own.
    virtual StatementSessionOf job_statement_session() { return {}; }
    // Where the job's statements go instead of the database when they share a pooled
    // connection (PgBouncer lends them connections as it lends the lock's): null otherwise.
    virtual StatementRelay* job_statement_relay() { return nullptr; }
};

// Stores that cannot queue a waiter (Redis, Redlock, a lease row): try, and when the
// lock is taken sleep a random delay so waiting servers do not retry in step.
class PollingLockClient : public LockStoreClient {
public:
    PollingLockClient(Host host, const RetrySpec& retry)
        : host_(host), retry_(retry), retry_delays_(host.random_stream("lock-retry")) {}

    Task<Lease> acquire() final;
    Task<std::optional<Lease>> acquire_once() final;

protected:
    // One attempt; nullopt if the lock is taken or the store did not answer in time.
    virtual Task<std::optional<Lease>> try_acquire() = 0;

    Host host_;

private:
    RetrySpec retry_;
    RandomStream retry_delays_;
};

}  // namespace locksim
