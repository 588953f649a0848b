#include "models/stores/redis_server.hpp"

#include <cassert>

#include "models/trace_kinds.hpp"
#include "sim/duration_text.hpp"

namespace locksim {
namespace {

// The persistence as a scenario file writes it: "none", "aof-everysec", "rdb every 1m".
std::string persistence_words(const PersistenceSpec& persistence) {
    switch (persistence.mode) {
        case PersistenceSpec::Mode::none: return "none";
        case PersistenceSpec::Mode::snapshot: return "rdb every " + format_duration(persistence.every);
        case PersistenceSpec::Mode::append_everysec: return "aof-everysec";
        case PersistenceSpec::Mode::append_always: return "aof-always";
    }
    return "none";
}

}  // namespace

RedisServer::RedisServer(Host host, const PersistenceSpec& persistence) : host_(host), persistence_(persistence) {
    Engine& engine = host_.engine();
    engine.on_crash(host_.id(), [this] {
        // The append-only file is written to the kernel on every write and synced once a
        // second: a dead process leaves every write in the kernel's page cache, which
        // reaches the disk anyway; only a dead machine loses the unsynced second.
        if (persistence_.mode == PersistenceSpec::Mode::append_everysec &&
            host_.engine().crash_kind(host_.id()) == CrashKind::process)
            saved_ = keys_;
        keys_.clear();
    });
    engine.on_restart(host_.id(), [this] {
        load_saved();
        start_saving();
    });
    start_saving();
}

void RedisServer::changed(const std::string& key) {
    if (persistence_.mode == PersistenceSpec::Mode::append_always) saved_ = keys_;
    if (!change_hook_) return;
    auto found = keys_.find(key);
    change_hook_(key, found == keys_.end() ? std::nullopt : std::optional<StoredKey>(found->second.stored));
}

void RedisServer::become_replica() {
    replica_ = true;
    keys_.clear();  // a (re)attached replica discards its data and takes the primary's stream
}

void RedisServer::apply_replicated(const std::string& key, const std::optional<StoredKey>& state) {
    if (!state) {
        keys_.erase(key);
    } else {
        keys_[key] = Entry{*state, next_version_++};
    }
    changed(key);
}

void RedisServer::promote() {
    replica_ = false;
    std::vector<std::string> keys;
    for (const auto& [key, entry] : keys_) keys.push_back(key);
    for (const auto& key : keys) arm_expiry(key);  // from now on it expires keys by its own clock
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
    const std::string persistence = persistence_words(persistence_);  // a field views its text
    host_.record(trace_kind::store_loaded,
                 {{"keys", static_cast<std::int64_t>(keys_.size())}, {"persistence", persistence}});
    for (const auto& [key, entry] : keys_) arm_expiry(key);
}

void RedisServer::expire_if_due(const std::string& key) {
    auto entry = keys_.find(key);
    if (replica_ || entry == keys_.end() || host_.wall_now() < entry->second.stored.expires_at) return;
    host_.record(trace_kind::lock_expired, {{"key", key},
                                            {"value", entry->second.stored.value},
                                            {"holder", entry->second.stored.holder},
                                            {"expires_at", entry->second.stored.expires_at}});
    keys_.erase(entry);
    changed(key);
}

void RedisServer::arm_expiry(const std::string& key) {
    if (replica_) return;
    const Entry& entry = keys_.at(key);
    if (entry.stored.expires_at == never) return;  // set without a TTL
    const std::uint64_t version = entry.version;
    host_.engine().schedule_at_wall(host_.id(), entry.stored.expires_at, [this, key, version] {
        auto found = keys_.find(key);
        // A later SET or an extension owns the expiry now; its own alarm will fire.
        if (found == keys_.end() || found->second.version != version) return;
        expire_if_due(key);
    });
}

bool RedisServer::set_if_absent(const std::string& key, const std::string& value, std::optional<Duration> ttl,
                                NodeId client) {
    if (!key_is_free(key, client)) return false;
    grant(key, value, ttl, client, std::nullopt);
    return true;
}

std::optional<std::int64_t> RedisServer::set_if_absent_with_token(const std::string& key, const std::string& value,
                                                                  std::optional<Duration> ttl,
                                                                  const std::string& counter, NodeId client) {
    if (!key_is_free(key, client)) return std::nullopt;
    const std::int64_t token = increment(counter, client);
    grant(key, value, ttl, client, token);
    return token;
}

// SET NX's test: nothing stored under the key (an expired lock is gone first).
bool RedisServer::key_is_free(const std::string& key, NodeId client) {
    expire_if_due(key);
    const auto stored = keys_.find(key);
    if (stored == keys_.end()) return true;
    // What refuses the grant is a live key: one expired by this node's own clock is gone.
    assert(replica_ || host_.wall_now() < stored->second.stored.expires_at);
    host_.record(trace_kind::lock_refused, {{"key", key}, {"client", client}});
    return false;
}

void RedisServer::grant(const std::string& key, const std::string& value, std::optional<Duration> ttl, NodeId client,
                        std::optional<std::int64_t> token) {
    assert(!ttl || ttl->ns > 0);  // the lock outlives its own grant
    const Instant expires_at = ttl ? host_.wall_now() + *ttl : never;
    // One value per key: a SET NX grants only where nothing is stored, never over a value.
    [[maybe_unused]] const bool fresh =
        keys_.try_emplace(key, Entry{StoredKey{value, client, expires_at}, next_version_++}).second;
    assert(fresh);
    changed(key);
    FieldList fields{{"key", key}, {"value", value}};
    if (token) fields.push_back({"token", *token});
    fields.push_back({"holder", client});
    if (ttl) {
        fields.push_back({"ttl", *ttl});
        fields.push_back({"expires_at", expires_at});
    }
    host_.record(trace_kind::lock_granted, fields);
    arm_expiry(key);
}

// INCR: a counter is a key holding a decimal number, absent as 0, and never expiring. It
// is persisted and replicated like the lock itself, and lost with it.
std::int64_t RedisServer::increment(const std::string& counter, NodeId client) {
    auto entry = keys_.find(counter);
    const std::int64_t value = entry == keys_.end() ? 1 : std::stoll(entry->second.stored.value) + 1;
    keys_[counter] = Entry{StoredKey{std::to_string(value), client, never}, next_version_++};
    changed(counter);
    return value;
}

int RedisServer::delete_if_equals(const std::string& key, const std::string& value, NodeId client) {
    expire_if_due(key);
    auto entry = keys_.find(key);
    if (entry == keys_.end() || entry->second.stored.value != value) return 0;
    return release(entry, client, value);
}

int RedisServer::del(const std::string& key, NodeId client) {
    expire_if_due(key);
    auto entry = keys_.find(key);
    if (entry == keys_.end()) return 0;
    return release(entry, client, std::nullopt);
}

// `compared`: the value a compare-and-delete names; without one (plain DEL) the key goes
// whoever's it was.
int RedisServer::release(std::map<std::string, Entry>::iterator entry, NodeId client,
                         const std::optional<std::string>& compared) {
    const bool plain = !compared.has_value();
    assert(plain || entry->second.stored.value == *compared);                // only the holder's own value
    assert(replica_ || host_.wall_now() < entry->second.stored.expires_at);  // a live key: expired ones are gone
    const std::string key = entry->first;
    host_.record(trace_kind::lock_released, {{"key", key},
                                             {"value", entry->second.stored.value},
                                             {"holder", entry->second.stored.holder},
                                             {"by", client},
                                             {"plain", plain}});
    keys_.erase(entry);
    changed(key);
    return 1;
}

int RedisServer::extend_if_equals(const std::string& key, const std::string& value, Duration ttl) {
    expire_if_due(key);
    auto entry = keys_.find(key);
    if (entry == keys_.end() || entry->second.stored.value != value) return 0;
    entry->second.stored.expires_at = host_.wall_now() + ttl;
    entry->second.version = next_version_++;
    changed(key);
    host_.record(trace_kind::lock_renewed, {{"key", key},
                                            {"value", value},
                                            {"holder", entry->second.stored.holder},
                                            {"expires_at", entry->second.stored.expires_at}});
    arm_expiry(key);
    return 1;
}

std::optional<std::string> RedisServer::get(const std::string& key) {
    expire_if_due(key);
    auto entry = keys_.find(key);
    if (entry == keys_.end()) return std::nullopt;
    return entry->second.stored.value;
}

}  // namespace locksim

namespace locksim {

std::vector<std::string> RedisServer::keys() const {
    std::vector<std::string> names;
    for (const auto& [key, entry] : keys_) names.push_back(key);
    return names;
}

std::optional<StoredKey> RedisServer::stored(const std::string& key) const {
    auto found = keys_.find(key);
    if (found == keys_.end()) return std::nullopt;
    return found->second.stored;
}

}  // namespace locksim
