#include "models/stores/database_locks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <vector>

#include "models/trace_kinds.hpp"

namespace locksim {

DatabaseLocks::DatabaseLocks(Host host, IdleTimeouts idle_timeouts) : host_(host), idle_timeouts_(idle_timeouts) {
    // Sessions and their locks live in the server's memory: a crash ends them all (the
    // clients learn it at their next statement).
    host_.engine().on_crash(host_.id(), [this] {
        sessions_.clear();
        advisory_.clear();
        rows_.clear();
    });
}

std::int64_t DatabaseLocks::connect(NodeId client) {
    const std::int64_t id = next_session_++;
    sessions_[id] = Session{client, host_.monotonic_now(), host_.wall_now(), host_.monotonic_now()};
    arm_idle_check(id);
    return id;
}

void DatabaseLocks::lend(std::int64_t session, NodeId client) {
    auto found = sessions_.find(session);
    if (found != sessions_.end()) found->second.client = client;
}

bool DatabaseLocks::touch(std::int64_t session) {
    auto found = sessions_.find(session);
    if (found == sessions_.end()) return false;
    mark_active(found->second);
    found->second.last_heard = host_.monotonic_now();
    return true;
}

void DatabaseLocks::mark_active(Session& session) const {
    session.last_activity = host_.monotonic_now();
    session.last_activity_wall = host_.wall_now();
}

std::optional<Instant> DatabaseLocks::last_heard(std::int64_t session) const {
    const auto found = sessions_.find(session);
    if (found == sessions_.end()) return std::nullopt;
    return found->second.last_heard;
}

std::optional<Duration> DatabaseLocks::idle_timeout_of(const Session& session) const {
    return session.in_transaction ? idle_timeouts_.in_transaction : idle_timeouts_.session;
}

// Armed at connect and at every step into or out of a transaction; only the newest check
// acts. Like PostgreSQL's timeout.c, the timer runs on the monotonic clock, and when it
// fires the deadline is checked again on the wall clock: a step back postpones it.
void DatabaseLocks::arm_idle_check(std::int64_t session) {
    const auto found = sessions_.find(session);
    if (found == sessions_.end()) return;
    const std::uint64_t check = ++found->second.idle_check;
    if (!idle_timeout_of(found->second)) return;
    const Duration wait = idle_time_left(found->second);
    host_.engine().schedule_after(host_.id(), wait.ns > 0 ? wait : Duration{}, [this, session, check] {
        auto still = sessions_.find(session);
        if (still == sessions_.end() || still->second.idle_check != check) return;
        if (still->second.waiting) mark_active(still->second);  // busy, not idle, though nothing arrived
        if (idle_time_left(still->second).ns > 0) {
            arm_idle_check(session);
            return;
        }
        end_session(session, still->second.in_transaction ? "idle-in-transaction timeout" : "idle timeout");
    });
}

Duration DatabaseLocks::idle_time_left(const Session& session) const {
    const Duration timeout = *idle_timeout_of(session);
    return std::max(session.last_activity + timeout - host_.monotonic_now(),
                    session.last_activity_wall + timeout - host_.wall_now());
}

std::optional<bool> DatabaseLocks::try_advisory_lock(std::int64_t session, const std::string& key,
                                                     bool in_transaction) {
    if (!touch(session)) return std::nullopt;
    auto held = advisory_.find(key);
    const NodeId client = sessions_.at(session).client;
    if (held != advisory_.end()) {
        assert(sessions_.contains(held->second.session));  // a lock is held by a live session
        if (held->second.session == session) {
            ++held->second.count;
            // The session is another client's now (a pooler lent it): the lock it holds
            // answers that client too, and the trace says whom it was granted to.
            if (held->second.client != client) {
                held->second.client = client;
                const std::string again = fmt::format("advisory, again on session {}", session);
                host_.record(trace_kind::lock_granted,
                             {{"key", key}, {"value", again}, {"holder", client}, {"session", session}});
            }
            return true;
        }
        host_.record(trace_kind::lock_refused, {{"key", key}, {"client", client}});
        return false;
    }
    advisory_[key] = Held{session, client, 1, in_transaction};
    if (in_transaction) set_in_transaction(session, true);
    host_.record(trace_kind::lock_granted,
                 {{"key", key}, {"value", "advisory"}, {"holder", client}, {"session", session}});
    return true;
}

std::optional<bool> DatabaseLocks::advisory_unlock(std::int64_t session, const std::string& key) {
    if (!touch(session)) return std::nullopt;
    auto held = advisory_.find(key);
    if (held == advisory_.end() || held->second.session != session) return false;
    if (--held->second.count == 0) release(advisory_, key, sessions_.at(session).client, false);
    return true;
}

Task<bool> DatabaseLocks::lock_row(std::int64_t session, std::string row) {
    if (!touch(session)) co_return false;
    set_in_transaction(session, true);
    for (;;) {
        if (!touch(session)) co_return false;
        auto held = rows_.find(row);
        if (held == rows_.end()) {
            assert(sessions_.at(session).in_transaction);  // a row lock lives in a transaction
            const NodeId client = sessions_.at(session).client;
            rows_[row] = Held{session, client};
            host_.record(trace_kind::lock_granted,
                         {{"key", row}, {"value", "FOR UPDATE"}, {"holder", client}, {"session", session}});
            co_return true;
        }
        assert(sessions_.contains(held->second.session));  // a lock is held by a live session
        if (held->second.session == session) co_return true;
        sessions_.at(session).waiting = true;
        co_await row_released_.wait(host_);  // blocked in the lock queue; no timeout
        if (auto still = sessions_.find(session); still != sessions_.end()) still->second.waiting = false;
    }
}

bool DatabaseLocks::commit(std::int64_t session) {
    if (!touch(session)) return false;
    std::vector<std::string> mine;
    for (const auto& [row, held] : rows_)
        if (held.session == session) mine.push_back(row);
    for (const auto& row : mine) release(rows_, row, sessions_.at(session).client, false);
    std::vector<std::string> taken_in_transaction;
    for (const auto& [key, held] : advisory_)
        if (held.session == session && held.transaction) taken_in_transaction.push_back(key);
    for (const auto& key : taken_in_transaction) release(advisory_, key, sessions_.at(session).client, false);
    const bool was_in_transaction = sessions_.at(session).in_transaction;
    set_in_transaction(session, false);
    if (was_in_transaction && transaction_ended_) transaction_ended_(session, true);
    return true;
}

std::optional<std::int64_t> DatabaseLocks::open_transaction(std::int64_t session) const {
    const auto found = sessions_.find(session);
    if (found == sessions_.end() || !found->second.in_transaction) return std::nullopt;
    return session;
}

void DatabaseLocks::set_in_transaction(std::int64_t session, bool in_transaction) {
    Session& state = sessions_.at(session);
    if (state.in_transaction == in_transaction) return;
    state.in_transaction = in_transaction;
    arm_idle_check(session);  // the other idle timeout applies from now
}

void DatabaseLocks::end_session(std::int64_t session, std::string_view why) {
    auto found = sessions_.find(session);
    if (found == sessions_.end()) return;
    const NodeId client = found->second.client;
    host_.record(trace_kind::db_session_ended, {{"session", session}, {"client", client}, {"reason", why}});
    // What its open transaction wrote rolls back before anyone can take its locks.
    if (found->second.in_transaction && transaction_ended_) transaction_ended_(session, false);
    for (auto* locks : {&advisory_, &rows_}) {
        std::vector<std::string> held;
        for (const auto& [key, lock] : *locks)
            if (lock.session == session) held.push_back(key);
        for (const auto& key : held) release(*locks, key, client, true);
    }
    sessions_.erase(found);
    row_released_.notify_all(host_.engine());  // a waiter of this session must learn it ended
}

void DatabaseLocks::release(std::map<std::string, Held>& locks, const std::string& key, NodeId by, bool session_ended) {
    const Held held = locks.at(key);
    // The session lets its own lock go, once: at its last unlock, its COMMIT or its end.
    assert(sessions_.contains(held.session));
    assert(&locks == &rows_ || held.count == 0 || held.transaction || session_ended);
    locks.erase(key);
    host_.record(session_ended ? trace_kind::lock_expired : trace_kind::lock_released,
                 {{"key", key},
                  {"value", &locks == &advisory_ ? "advisory" : "FOR UPDATE"},
                  {"holder", held.client},
                  {"by", by},
                  {"plain", false}});
    row_released_.notify_all(host_.engine());
}

// The database's kernel resets the connection of a client whose machine died at `died`
// once keepalive has probed it unanswered. A statement still on the wire at the death
// arrives later and starts the count again, so the deadline is read anew when it falls due.
void end_when_keepalive_gives_up(Engine& engine, DatabaseLocks& locks, NodeId database, std::int64_t session,
                                 TcpKeepalives keepalives, Instant died) {
    const auto heard = locks.last_heard(session);
    if (!heard) return;  // the session has ended already
    const Instant now = engine.monotonic_now(database);
    // Heard after the death: a statement that was on the wire, and no probe answered since.
    const Instant due = *heard > died ? *heard + keepalives.gives_up_after() : keepalives.gives_up_at(*heard, died);
    if (due > now) {
        engine.schedule_after(database, due - now, [&engine, &locks, database, session, keepalives, died] {
            end_when_keepalive_gives_up(engine, locks, database, session, keepalives, died);
        });
        return;
    }
    locks.end_session(session, "TCP keepalive gave up on a dead machine");
}

}  // namespace locksim
