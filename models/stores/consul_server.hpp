#pragma once
// One Consul server (a datacenter of one, so always its leader) as a lock store: sessions
// and the KV store's acquire and release, with the timing rules of Consul's documentation
// ("Sessions and distributed locks", the Session and KV HTTP APIs; docs/models.md):
//
//   PUT /v1/session/create {"TTL": "10s", "LockDelay": "15s"}  -> the session's ID
//   PUT /v1/session/renew/<id>                                 -> 200, or 404 once it is gone
//   PUT /v1/kv/<key>?acquire=<id>                              -> true or false
//   PUT /v1/kv/<key>?release=<id>                              -> true or false
//   PUT /v1/session/destroy/<id>                               -> true
//   GET /v1/kv/<key>?index=<n>&consistent                      -> the key's session, when its
//                                                                 ModifyIndex passes n (a blocking query)
//
// A session's TTL is a lower bound: the server invalidates it once ttl x 2 has passed on
// its timer without a renewal. Invalidation (or destroying the session) releases the keys
// it held and refuses to let anyone acquire them for the session's lock-delay; a release
// asked for starts no lock-delay. A key's LockIndex counts its acquisitions, so it rises
// with every grant: Consul's "sequencer" is (key, LockIndex, session), and the LockIndex is
// the fencing token. Both timers run on the server's monotonic clock (Go timers, and
// time.Now() comparisons that use its monotonic reading): a step of its wall clock moves
// neither.
//
// Sessions and keys are in the Raft log on disk and survive a restart, which resets every
// session's timer (as a new leader does); lock-delays live in memory and do not survive.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "models/stores/lock_spec.hpp"

#include "sim/condition.hpp"
#include "sim/host.hpp"
#include "sim/random.hpp"
#include "sim/task.hpp"

namespace locksim {

// Consul's structs.SessionTTLMultiplier: the server waits twice the TTL before it
// invalidates a session, for network delay and clock rates ("sessions may not be reaped
// for up to double this TTL").
inline constexpr int consul_ttl_multiplier = 2;

// What `PUT /v1/kv/<key>?acquire=<session>` came to.
struct ConsulAcquireReply {
    enum class Outcome {
        acquired,         // true: the LockIndex is the key's, raised if the session did not hold it already
        held,             // false: another session holds the key
        lock_delay,       // false: a session holding the key was invalidated less than its lock-delay ago
        invalid_session,  // an error: the session does not exist (invalidated, or never created)
    };
    Outcome outcome = Outcome::held;
    std::int64_t lock_index = 0;  // when acquired
};

// What a read of a key answers: the session holding it (empty: none) and its ModifyIndex,
// which a blocking query waits to see pass.
struct ConsulKeyState {
    std::string session;
    std::int64_t modify_index = 0;
};

// How long a blocking query waits for a change before it answers with none: Consul's
// default wait (the HTTP API's "wait" parameter; api.Lock's monitor sets none). Consul adds
// up to wait/16 of random jitter, which the model leaves out.
inline constexpr Duration consul_blocking_query_wait = minutes(5);

class ConsulServer {
public:
    explicit ConsulServer(Host host);

    // A new session of `client`'s with `ttl`, whose keys are held back `lock_delay` after
    // it is invalidated (Consul caps it at 60s); returns its ID.
    std::string create_session(NodeId client, Duration ttl, Duration lock_delay);
    // Restarts the session's TTL; false (404) if the session is gone.
    bool renew_session(const std::string& session);
    ConsulAcquireReply acquire(const std::string& key, const std::string& session, NodeId client);
    // Lets the key go if `session` holds it; the LockIndex stays, and no lock-delay starts.
    bool release(const std::string& key, const std::string& session, NodeId by);
    // Ends the session as invalidation does, lock-delay included; true even if it was gone.
    bool destroy_session(const std::string& session, NodeId by);
    // A blocking query: the key's state once its ModifyIndex is above `index`, or after
    // consul_blocking_query_wait with nothing new.
    Task<ConsulKeyState> read_when_changed(std::string key, std::int64_t index);

private:
    struct Session {
        NodeId client;
        Duration ttl;
        Duration lock_delay;
        Instant renewed_at;  // on this server's monotonic clock
    };
    struct Entry {
        std::int64_t lock_index = 0;
        std::string session;  // empty: nobody holds the key
        NodeId holder;
        std::int64_t modify_index = 0;  // the Raft index of the key's last change
    };

    Instant invalidation_due(const Session& session) const {
        return session.renewed_at + session.ttl * consul_ttl_multiplier;
    }
    // The due time as a reading of this server's wall clock, as the trace reports expiries.
    Instant due_on_wall_clock(const Session& session) const;
    void arm_timer(const std::string& session);
    // Releases (invalidation: `by` none) or hands back (destroy) what the session held, and
    // holds each key back for its lock-delay.
    void end_session(const std::string& session, std::optional<NodeId> destroyed_by);
    void refuse(const std::string& key, NodeId client, std::optional<std::string> reason);
    // The key's holder changed: a new index, and every blocking query on it answers.
    void changed(Entry& entry);

    Host host_;
    RandomStream session_ids_;
    std::map<std::string, Session> sessions_;
    std::map<std::string, Entry> keys_;
    std::map<std::string, Instant> lock_delay_until_;  // monotonic
    std::int64_t raft_index_ = 0;                      // in the Raft log: survives a restart
    Condition key_changed_;
};

}  // namespace locksim
