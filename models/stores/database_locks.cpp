#include "models/stores/database_locks.hpp"

#include <vector>

#include "models/trace_kinds.hpp"

namespace locksim {

DatabaseLocks::DatabaseLocks(Host host, std::optional<Duration> idle_timeout)
    : host_(host), idle_timeout_(idle_timeout) {
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
    sessions_[id] = Session{client, host_.monotonic_now()};
    arm_idle_check(id);
    return id;
}

bool DatabaseLocks::touch(std::int64_t session) {
    auto found = sessions_.find(session);
    if (found == sessions_.end()) return false;
    found->second.last_activity = host_.monotonic_now();
    return true;
}

void DatabaseLocks::arm_idle_check(std::int64_t session) {
    if (!idle_timeout_) return;
    const auto found = sessions_.find(session);
    if (found == sessions_.end()) return;
    const Duration wait = found->second.last_activity + *idle_timeout_ - host_.monotonic_now();
    host_.engine().schedule_after(host_.id(), wait.ns > 0 ? wait : Duration{}, [this, session] {
        auto still = sessions_.find(session);
        if (still == sessions_.end()) return;
        if (still->second.waiting) still->second.last_activity = host_.monotonic_now();  // busy, not idle
        if (host_.monotonic_now() - still->second.last_activity < *idle_timeout_) {
            arm_idle_check(session);
            return;
        }
        end_session(session, "idle timeout");
    });
}

std::optional<bool> DatabaseLocks::try_advisory_lock(std::int64_t session, const std::string& key) {
    if (!touch(session)) return std::nullopt;
    auto held = advisory_.find(key);
    const NodeId client = sessions_.at(session).client;
    if (held != advisory_.end()) {
        if (held->second.session == session) return true;
        host_.record(trace_kind::lock_refused, {{"key", key}, {"client", client}});
        return false;
    }
    advisory_[key] = Held{session, client};
    host_.record(trace_kind::lock_granted,
                 {{"key", key}, {"value", std::string("advisory")}, {"holder", client}, {"session", session}});
    return true;
}

std::optional<bool> DatabaseLocks::advisory_unlock(std::int64_t session, const std::string& key) {
    if (!touch(session)) return std::nullopt;
    auto held = advisory_.find(key);
    if (held == advisory_.end() || held->second.session != session) return false;
    release(advisory_, key, sessions_.at(session).client, false);
    return true;
}

Task<bool> DatabaseLocks::lock_row(std::int64_t session, std::string row) {
    for (;;) {
        if (!touch(session)) co_return false;
        auto held = rows_.find(row);
        if (held == rows_.end()) {
            const NodeId client = sessions_.at(session).client;
            rows_[row] = Held{session, client};
            host_.record(
                trace_kind::lock_granted,
                {{"key", row}, {"value", std::string("FOR UPDATE")}, {"holder", client}, {"session", session}});
            co_return true;
        }
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
    return true;
}

void DatabaseLocks::end_session(std::int64_t session, std::string_view why) {
    auto found = sessions_.find(session);
    if (found == sessions_.end()) return;
    const NodeId client = found->second.client;
    host_.record(trace_kind::db_session_ended,
                 {{"session", session}, {"client", client}, {"reason", std::string(why)}});
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
    locks.erase(key);
    host_.record(session_ended ? trace_kind::lock_expired : trace_kind::lock_released,
                 {{"key", key},
                  {"value", std::string(&locks == &advisory_ ? "advisory" : "FOR UPDATE")},
                  {"holder", held.client},
                  {"by", by},
                  {"plain", false}});
    row_released_.notify_all(host_.engine());
}

}  // namespace locksim
