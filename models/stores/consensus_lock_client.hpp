#pragma once
// The lock recipes of ZooKeeper and etcd over a ConsensusEnsemble (docs/models.md):
//
// ZooKeeper: create lock/lock- as EPHEMERAL|SEQUENTIAL in the client's session; list the
//   children; the lowest sequence number holds the lock; otherwise watch the next-lower
//   node only and, when it goes, list again. Token: the node's czxid.
// etcd: put prefix/<lease id> bound to the client's lease if absent; the lowest create
//   revision holds; otherwise wait for the deletion of the key just below. Token: the
//   key's create revision.
//
// With `watch: "holder"` every waiter watches the holder instead, and each release
// wakes them all to find one winner: the herd effect.
//
// The session (etcd: lease) is kept alive by a heartbeat every timeout/3 from the moment
// it opens, whether or not the lock is held. Only the cluster decides that it expired; the
// client learns it at its next heartbeat, and until then believes until the last
// acknowledged heartbeat plus the timeout, by its own monotonic clock.
#include <optional>
#include <string>

#include "models/lock_client.hpp"
#include "models/stores/consensus_ensemble.hpp"
#include "models/stores/store_deployment.hpp"
#include "sim/condition.hpp"
#include "sim/network.hpp"

namespace locksim {

class ConsensusLockClient final : public LockStoreClient {
public:
    ConsensusLockClient(Host host, Network& network, ConsensusEnsemble& ensemble, const LockSpec& spec);

    Task<Lease> acquire() override;
    Task<ExtendResult> extend(const Lease& lease) override;
    Task<void> release(const Lease& lease) override;
    // A library that keeps no deadline of its own, or counts it from the answers, hears of
    // its session's end from the session itself (kazoo's LOST, the end of clientv3's
    // keep-alive channel), not at the holder's next look.
    bool watches_lock() const override;
    Task<std::string> watch_for_loss(const Lease& lease) override;

private:
    bool zookeeper() const { return ensemble_.flavor() == ConsensusEnsemble::Flavor::zookeeper; }
    // The session (lease) timeout the cluster granted, which the connect (LeaseGrant) reply
    // carries: the one asked for, clamped.
    Duration granted_timeout() const { return ensemble_.granted_timeout(spec_.ttl); }
    std::string connect_label() const;
    Task<std::int64_t> open_session();
    Task<void> keep_alive(std::int64_t session);
    Instant heard_from(Instant sent) const;
    Task<std::optional<ConsensusKey>> create_own_key(std::int64_t session);
    Task<std::vector<ConsensusKey>> list_waiters();
    Task<bool> watch_deletion(const std::string& path);

    Host host_;
    Network& network_;
    ConsensusEnsemble& ensemble_;
    LockSpec spec_;
    std::optional<std::int64_t> session_;
    bool session_expired_ = false;
    Instant heard_until_;  // monotonic: the session's end as its client reckons (heard_from + timeout)
    Condition woken_;      // a watch fired, or the session expired
};

}  // namespace locksim
