#pragma once
// The Redis commands a lock client sends, over the network to one node: what a
// connection of a client library does. Each returns nullopt when no reply came in time.
#include <cstdint>
#include <optional>
#include <string>

#include "models/stores/redis_server.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

namespace locksim {

// A lock that SET NX won, with the fencing token when the lock script INCRs a counter.
struct RedisGrant {
    std::optional<std::int64_t> token;
};

class RedisConnection {
public:
    RedisConnection(Network& network, Host client, NodeId node, RedisServer& server, Duration timeout)
        : network_(&network), client_(client), node_(node), server_(&server), timeout_(timeout) {}

    // SET key value NX PX ttl (NX alone without a ttl): true for OK, false for nil.
    Task<std::optional<bool>> set_if_absent(std::string key, std::string value, std::optional<Duration> ttl) const;
    // A lock client's acquire: SET NX alone, or with `token_counter` the script that also
    // INCRs it. nullopt when the lock is taken or no reply came in time.
    Task<std::optional<RedisGrant>> grant(std::string key, std::string value, std::optional<Duration> ttl,
                                          std::optional<std::string> token_counter) const;
    // Compare-and-extend, SET key value IFEQ value PX ttl (Redis 8.4): 1 if the value
    // matched and the TTL was reset.
    Task<std::optional<int>> extend_if_equals(std::string key, std::string value, Duration ttl) const;
    // DELEX key IFEQ value, or a plain DEL: 1 if a key was deleted.
    Task<std::optional<int>> release(std::string key, std::string value, bool plain) const;

private:
    Network* network_;
    Host client_;
    NodeId node_;
    RedisServer* server_;
    Duration timeout_;
};

}  // namespace locksim
