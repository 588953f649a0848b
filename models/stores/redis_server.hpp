#pragma once
// One Redis node holding lock keys, with the command semantics of docs/models.md: SET NX PX,
// compare-and-delete, plain DEL, compare-and-extend. Expiry is an absolute reading of
// the host's wall clock, checked on every access and by an alarm at the deadline (the
// active expiry cycle), so a clock step on the Redis host moves every expiry with it.
//
// A crash loses the keys in memory; the restart loads what the persistence mode had
// saved, and a key whose expiry passed while the node was down is gone at once.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/stores/lock_spec.hpp"
#include "sim/host.hpp"

namespace locksim {

// A key as the replication stream carries it.
struct StoredKey {
    std::string value;
    NodeId holder;       // the client that set it (CLIENT SETNAME), for the trace
    Instant expires_at;  // reading of the primary's wall clock
};

class RedisServer {
public:
    RedisServer(Host host, const PersistenceSpec& persistence);

    // SET key value NX PX ttl: true ("OK") if the key was free and is now ours. Without a
    // ttl (SET NX alone) the key never expires.
    bool set_if_absent(const std::string& key, const std::string& value, std::optional<Duration> ttl, NodeId client);
    // The lock script of a fenced Redis lock: SET NX PX and, when it succeeds, INCR
    // `counter` in the same EVAL, so nothing runs between the two. The counter's new value
    // is the fencing token; nullopt when the lock is taken.
    std::optional<std::int64_t> set_if_absent_with_token(const std::string& key, const std::string& value,
                                                         std::optional<Duration> ttl, const std::string& counter,
                                                         NodeId client);
    // The compare-and-delete script / DELEX IFEQ: 1 if deleted, 0 if the value differs.
    int delete_if_equals(const std::string& key, const std::string& value, NodeId client);
    // Plain DEL: 1 if a key was deleted, whoever's it was.
    int del(const std::string& key, NodeId client);
    // Compare-and-extend (PEXPIRE in a script): 1 if the value matched and the TTL was reset.
    int extend_if_equals(const std::string& key, const std::string& value, Duration ttl);

    std::optional<std::string> get(const std::string& key);

    // For a full resynchronisation: every key and what it holds.
    std::vector<std::string> keys() const;
    std::optional<StoredKey> stored(const std::string& key) const;

    // Replication. A primary calls the hook after every change of a key (nullopt: it was
    // deleted, by a command or by expiry). A replica applies what the stream brings and
    // never expires keys itself, until it is promoted.
    void on_change(std::function<void(const std::string& key, const std::optional<StoredKey>&)> hook) {
        change_hook_ = std::move(hook);
    }
    void become_replica();
    void apply_replicated(const std::string& key, const std::optional<StoredKey>& state);
    void promote();
    bool is_replica() const { return replica_; }

private:
    struct Entry {
        StoredKey stored;
        std::uint64_t version = 0;  // which expiry alarm is current
    };

    void expire_if_due(const std::string& key);
    bool key_is_free(const std::string& key, NodeId client);
    void grant(const std::string& key, const std::string& value, std::optional<Duration> ttl, NodeId client,
               std::optional<std::int64_t> token);
    std::int64_t increment(const std::string& counter, NodeId client);
    int release(std::map<std::string, Entry>::iterator entry, NodeId client,
                const std::optional<std::string>& compared);
    void arm_expiry(const std::string& key);
    void changed(const std::string& key);  // after every write: persistence and replication
    void start_saving();
    Task<void> save_periodically(Duration every);
    void load_saved();

    Host host_;
    PersistenceSpec persistence_;
    std::map<std::string, Entry> keys_;
    std::map<std::string, Entry> saved_;  // on disk
    std::uint64_t next_version_ = 0;
    bool replica_ = false;
    std::function<void(const std::string&, const std::optional<StoredKey>&)> change_hook_;
};

}  // namespace locksim
