#pragma once
// client-go's leader election (k8s.io/client-go/tools/leaderelection, LeaseLock) as a
// lock client. Everything a candidate knows about time is its own: it notes, on its
// monotonic clock, when it last saw the Lease's record change (observedTime), and takes
// the lease over only after lease_duration (the lock's ttl) without a change. The leader
// renews every retry_period; a renewal round that has not succeeded within renew_deadline
// makes it stop leading. Between rounds nothing times its leadership: a leader paused
// for a minute wakes up still leading, and learns otherwise only when a round fails.
//
// The token is the leaseTransitions this client wrote when it took the lease (docs/models.md,
// on whether it fences).
#include <optional>

#include "models/lock_client.hpp"
#include "models/stores/kubernetes_lease_store.hpp"
#include "models/stores/store_deployment.hpp"
#include "sim/network.hpp"

namespace locksim {

class KubernetesLeaseLockClient final : public PollingLockClient {
public:
    KubernetesLeaseLockClient(Host host, Network& network, NodeId api_server_node, KubernetesApiServer& api_server,
                              const LockSpec& spec);

    // One round of the leader's renew loop: `refused` when it stops leading.
    Task<ExtendResult> extend(const Lease& lease) override;
    // client-go's release (ReleaseOnCancel): clears the holder if this client's own last
    // observation says it leads.
    Task<void> release(const Lease& lease) override;

protected:
    Task<std::optional<Lease>> try_acquire() override;

private:
    enum class Written { yes, conflict, no_reply };

    // client-go's tryAcquireOrRenew; `deadline` (monotonic) ends a renewal round's requests.
    // (Records go to these coroutines by value: a caller's temporary dies before the frame.)
    Task<bool> try_acquire_or_renew(std::optional<Instant> deadline);
    Task<std::optional<LeaseReply>> get(std::optional<Instant> deadline);
    Task<bool> create(LeaseRecord record, std::optional<Instant> deadline);
    Task<Written> update(LeaseRecord record, std::int64_t resource_version, std::optional<Instant> deadline);

    LeaseRecord own_record() const;
    bool is_leader() const { return observed_record_.holder_identity == host_.name(); }
    bool lease_valid() const;
    void observe(const LeaseRecord& record);
    std::optional<Duration> time_for_request(std::optional<Instant> deadline) const;

    Network& network_;
    NodeId api_server_node_;
    KubernetesApiServer& api_server_;
    LockSpec spec_;
    // The LeaderElector's bookkeeping. `observed_record_` is what it last read or wrote, at
    // `observed_time_` on this node's monotonic clock; `read_record_` is what it last read
    // (a read that differs restarts the clock); `resource_version_` is the version of the
    // object it last read or wrote, which its next PUT names.
    LeaseRecord observed_record_;
    Instant observed_time_;
    std::optional<LeaseRecord> read_record_;
    std::optional<std::int64_t> resource_version_;
};

}  // namespace locksim
