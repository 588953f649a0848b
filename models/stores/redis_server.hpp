#pragma once
// One Redis node holding lock keys, with the command semantics of MODELS.md: SET NX PX,
// compare-and-delete, plain DEL, compare-and-extend. Expiry is an absolute reading of
// the host's wall clock, checked on every access and by an alarm at the deadline (the
// active expiry cycle), so a clock step on the Redis host moves every expiry with it.
//
// A crash loses the keys in memory; the restart loads what the persistence mode had
// saved, and a key whose expiry passed while the node was down is gone at once.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/world/world_spec.hpp"
#include "sim/host.hpp"

namespace locksim {

class RedisServer {
public:
    RedisServer(Host host, const PersistenceSpec& persistence);

    // SET key value NX PX ttl: true ("OK") if the key was free and is now ours.
    bool set_if_absent(const std::string& key, const std::string& value, Duration ttl, NodeId client);
    // The compare-and-delete script / DELEX IFEQ: 1 if deleted, 0 if the value differs.
    int delete_if_equals(const std::string& key, const std::string& value, NodeId client);
    // Plain DEL: 1 if a key was deleted, whoever's it was.
    int del(const std::string& key, NodeId client);
    // Compare-and-extend (PEXPIRE in a script): 1 if the value matched and the TTL was reset.
    int extend_if_equals(const std::string& key, const std::string& value, Duration ttl);

    std::optional<std::string> get(const std::string& key);

private:
    struct Entry {
        std::string value;
        NodeId holder;       // the client that set it (CLIENT SETNAME), for the trace
        Instant expires_at;  // reading of this host's wall clock
        std::uint64_t version = 0;
    };

    void expire_if_due(const std::string& key);
    void arm_expiry(const std::string& key);
    void changed();  // after every write: what the persistence mode saves now
    void start_saving();
    Task<void> save_periodically(Duration every);
    void load_saved();

    Host host_;
    PersistenceSpec persistence_;
    std::map<std::string, Entry> keys_;
    std::map<std::string, Entry> saved_;  // on disk
    std::uint64_t next_version_ = 0;
};

}  // namespace locksim
