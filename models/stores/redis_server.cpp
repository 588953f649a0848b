#include "models/stores/redis_server.hpp"

#include "models/trace_kinds.hpp"

namespace locksim {

RedisServer::RedisServer(Host host, const PersistenceSpec& persistence) : host_(host), persistence_(persistence) {
    Engine& engine = host_.engine();
    engine.on_crash(host_.id(), [this] { keys_.clear(); });
    engine.on_restart(host_.id(), [this] {
        load_saved();
        start_saving();
    });
    start_saving();
}

void RedisServer::changed() {
    if (persistence_.mode == PersistenceSpec::Mode::append_always) saved_ = keys_;
}

void RedisServer::start_saving() {
    switch (persistence_.mode) {
        case PersistenceSpec::Mode::snapshot: host_.spawn(save_periodically(persistence_.every)); break;
        case PersistenceSpec::Mode::append_everysec: host_.spawn(save_periodically(seconds(1))); break;
        case PersistenceSpec::Mode::none:
        case PersistenceSpec::Mode::append_always: break;
    }
}

Task<void> RedisServer::save_periodically(Duration every) {
    for (;;) {
        co_await host_.sleep(every);
        saved_ = keys_;
    }
}

void RedisServer::load_saved() {
    keys_ = saved_;
    host_.record(trace_kind::store_loaded, {{"keys", static_cast<std::int64_t>(keys_.size())}});
    for (const auto& [key, entry] : keys_) arm_expiry(key);
}

void RedisServer::expire_if_due(const std::string& key) {
    auto entry = keys_.find(key);
    if (entry == keys_.end() || host_.wall_now() < entry->second.expires_at) return;
    host_.record(trace_kind::lock_expired, {{"key", key},
                                            {"value", entry->second.value},
                                            {"holder", entry->second.holder},
                                            {"expires_at", entry->second.expires_at}});
    keys_.erase(entry);
    changed();
}

void RedisServer::arm_expiry(const std::string& key) {
    const Entry& entry = keys_.at(key);
    const std::uint64_t version = entry.version;
    host_.engine().schedule_at_wall(host_.id(), entry.expires_at, [this, key, version] {
        auto found = keys_.find(key);
        // A later SET or an extension owns the expiry now; its own alarm will fire.
        if (found == keys_.end() || found->second.version != version) return;
        expire_if_due(key);
    });
}

bool RedisServer::set_if_absent(const std::string& key, const std::string& value, Duration ttl, NodeId client) {
    expire_if_due(key);
    if (keys_.contains(key)) {
        host_.record(trace_kind::lock_refused, {{"key", key}, {"client", client}});
        return false;
    }
    const Instant expires_at = host_.wall_now() + ttl;
    keys_[key] = Entry{value, client, expires_at, next_version_++};
    changed();
    host_.record(trace_kind::lock_granted,
                 {{"key", key}, {"value", value}, {"holder", client}, {"ttl", ttl}, {"expires_at", expires_at}});
    arm_expiry(key);
    return true;
}

int RedisServer::delete_if_equals(const std::string& key, const std::string& value, NodeId client) {
    expire_if_due(key);
    auto entry = keys_.find(key);
    if (entry == keys_.end() || entry->second.value != value) return 0;
    host_.record(trace_kind::lock_released, {{"key", key},
                                             {"value", entry->second.value},
                                             {"holder", entry->second.holder},
                                             {"by", client},
                                             {"plain", false}});
    keys_.erase(entry);
    changed();
    return 1;
}

int RedisServer::del(const std::string& key, NodeId client) {
    expire_if_due(key);
    auto entry = keys_.find(key);
    if (entry == keys_.end()) return 0;
    host_.record(trace_kind::lock_released, {{"key", key},
                                             {"value", entry->second.value},
                                             {"holder", entry->second.holder},
                                             {"by", client},
                                             {"plain", true}});
    keys_.erase(entry);
    changed();
    return 1;
}

int RedisServer::extend_if_equals(const std::string& key, const std::string& value, Duration ttl) {
    expire_if_due(key);
    auto entry = keys_.find(key);
    if (entry == keys_.end() || entry->second.value != value) return 0;
    entry->second.expires_at = host_.wall_now() + ttl;
    entry->second.version = next_version_++;
    changed();
    host_.record(trace_kind::lock_renewed, {{"key", key},
                                            {"value", value},
                                            {"holder", entry->second.holder},
                                            {"expires_at", entry->second.expires_at}});
    arm_expiry(key);
    return 1;
}

std::optional<std::string> RedisServer::get(const std::string& key) {
    expire_if_due(key);
    auto entry = keys_.find(key);
    if (entry == keys_.end()) return std::nullopt;
    return entry->second.value;
}

}  // namespace locksim
