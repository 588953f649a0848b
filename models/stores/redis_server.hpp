#pragma once
// One Redis node holding lock keys, with the command semantics of MODELS.md: SET NX PX,
// compare-and-delete, plain DEL, compare-and-extend. Expiry is an absolute reading of
// the host's wall clock, checked on every access and by an alarm at the deadline (the
// active expiry cycle), so a clock step on the Redis host moves every expiry with it.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "sim/host.hpp"

namespace locksim {

class RedisServer {
public:
    explicit RedisServer(Host host) : host_(host) {}

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

    Host host_;
    std::map<std::string, Entry> keys_;
    std::uint64_t next_version_ = 0;
};

}  // namespace locksim
