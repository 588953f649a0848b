#include "models/stores/consul_server.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <vector>

#include "models/trace_kinds.hpp"

namespace locksim {

ConsulServer::ConsulServer(Host host) : host_(host), session_ids_(host.random_stream("session-ids")) {
    Engine& engine = host_.engine();
    // The lock-delays are a map in the state store's memory, not in the Raft log.
    engine.on_crash(host_.id(), [this] { lock_delay_until_.clear(); });
    // A server that becomes leader starts every session's timer afresh.
    engine.on_restart(host_.id(), [this] {
        for (auto& [id, session] : sessions_) {
            session.renewed_at = host_.monotonic_now();
            arm_timer(id);
        }
    });
}

Instant ConsulServer::due_on_wall_clock(const Session& session) const {
    return host_.wall_now() + (invalidation_due(session) - host_.monotonic_now());
}

std::string ConsulServer::create_session(NodeId client, Duration ttl, Duration lock_delay) {
    const std::string id = fmt::format("{}-{}-{}-{}-{}", session_ids_.hex(8), session_ids_.hex(4), session_ids_.hex(4),
                                       session_ids_.hex(4), session_ids_.hex(12));
    sessions_[id] = Session{client, ttl, std::min(lock_delay, ConsulSpec::max_lock_delay), host_.monotonic_now()};
    arm_timer(id);
    return id;
}

// One timer per session, armed when it is created: a renewal only moves the due time, and
// the timer, when it fires early, sets itself again for the rest.
void ConsulServer::arm_timer(const std::string& id) {
    const Duration wait = invalidation_due(sessions_.at(id)) - host_.monotonic_now();
    host_.engine().schedule_after(host_.id(), wait, [this, id] {
        const auto found = sessions_.find(id);
        if (found == sessions_.end()) return;  // destroyed meanwhile
        if (host_.monotonic_now() < invalidation_due(found->second)) {
            arm_timer(id);
            return;
        }
        end_session(id, std::nullopt);
    });
}

bool ConsulServer::renew_session(const std::string& id) {
    const auto found = sessions_.find(id);
    if (found == sessions_.end()) return false;
    Session& session = found->second;
    session.renewed_at = host_.monotonic_now();
    for (const auto& [key, entry] : keys_)
        if (entry.session == id)
            host_.record(trace_kind::lock_renewed, {{"key", key},
                                                    {"value", id},
                                                    {"token", entry.lock_index},
                                                    {"holder", entry.holder},
                                                    {"expires_at", due_on_wall_clock(session)}});
    return true;
}

void ConsulServer::refuse(const std::string& key, NodeId client, std::optional<std::string> reason) {
    FieldList fields{{"key", key}, {"client", client}};
    if (reason) fields.push_back({"reason", *reason});
    host_.record(trace_kind::lock_refused, fields);
}

ConsulAcquireReply ConsulServer::acquire(const std::string& key, const std::string& id, NodeId client) {
    using Outcome = ConsulAcquireReply::Outcome;
    // Consul enforces lock-delay before it looks at the session or the key.
    if (const auto delayed = lock_delay_until_.find(key);
        delayed != lock_delay_until_.end() && host_.monotonic_now() < delayed->second) {
        refuse(key, client, "lock-delay");
        return {Outcome::lock_delay, 0};
    }
    const auto session = sessions_.find(id);
    if (session == sessions_.end()) {
        refuse(key, client, "invalid session");
        return {Outcome::invalid_session, 0};
    }
    Entry& entry = keys_[key];
    // A key is held only by a live session: ending one releases its keys.
    assert(entry.session.empty() || sessions_.contains(entry.session));
    // The holder's own session acquires again without a new LockIndex (a reply it missed).
    if (entry.session == id) return {Outcome::acquired, entry.lock_index};
    if (!entry.session.empty()) {
        refuse(key, client, std::nullopt);
        return {Outcome::held, 0};
    }
    ++entry.lock_index;
    entry.session = id;
    entry.holder = client;
    changed(entry);
    host_.record(trace_kind::lock_granted, {{"key", key},
                                            {"value", id},
                                            {"token", entry.lock_index},
                                            {"holder", client},
                                            {"ttl", session->second.ttl},
                                            {"expires_at", due_on_wall_clock(session->second)}});
    return {Outcome::acquired, entry.lock_index};
}

bool ConsulServer::release(const std::string& key, const std::string& id, NodeId by) {
    const auto found = keys_.find(key);
    if (found == keys_.end() || found->second.session != id) return false;
    Entry& entry = found->second;
    assert(sessions_.contains(id));  // a key is held only by a live session
    host_.record(trace_kind::lock_released, {{"key", key},
                                             {"value", id},
                                             {"token", entry.lock_index},
                                             {"holder", entry.holder},
                                             {"by", by},
                                             {"plain", false}});
    entry.session.clear();  // the LockIndex stays: the next grant raises it
    changed(entry);
    return true;
}

void ConsulServer::changed(Entry& entry) {
    entry.modify_index = ++raft_index_;
    key_changed_.notify_all(host_.engine());
}

Task<ConsulKeyState> ConsulServer::read_when_changed(std::string key, std::int64_t index) {
    const Instant deadline = host_.monotonic_now() + consul_blocking_query_wait;
    for (;;) {
        const auto found = keys_.find(key);
        const std::int64_t now_at = found == keys_.end() ? 0 : found->second.modify_index;
        const Duration left = deadline - host_.monotonic_now();
        if (now_at > index || left.ns <= 0)
            co_return ConsulKeyState{found == keys_.end() ? "" : found->second.session, now_at};
        co_await key_changed_.wait(host_, left);
    }
}

bool ConsulServer::destroy_session(const std::string& id, NodeId by) {
    if (sessions_.contains(id)) end_session(id, by);
    return true;
}

void ConsulServer::end_session(const std::string& id, std::optional<NodeId> destroyed_by) {
    const Session session = sessions_.at(id);
    sessions_.erase(id);
    for (auto& [key, entry] : keys_) {
        if (entry.session != id) continue;
        if (destroyed_by)
            host_.record(trace_kind::lock_released, {{"key", key},
                                                     {"value", id},
                                                     {"token", entry.lock_index},
                                                     {"holder", entry.holder},
                                                     {"by", *destroyed_by},
                                                     {"plain", false}});
        else
            host_.record(trace_kind::lock_expired,
                         {{"key", key}, {"value", id}, {"token", entry.lock_index}, {"holder", entry.holder}});
        entry.session.clear();
        changed(entry);
        if (session.lock_delay.ns > 0) lock_delay_until_[key] = host_.monotonic_now() + session.lock_delay;
    }
}

}  // namespace locksim
