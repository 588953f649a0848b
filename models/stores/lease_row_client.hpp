#pragma once
// The client of a database lease row: one UPDATE claims the lease and returns the new
// fence, the fencing token. Leases are timed from the moment the request left.
#include "models/lock_client.hpp"
#include "models/stores/lease_row_store.hpp"
#include "models/stores/store_deployment.hpp"
#include "sim/network.hpp"

namespace locksim {

class LeaseRowLockClient final : public PollingLockClient {
public:
    LeaseRowLockClient(Host host, Network& network, NodeId store_node, LeaseRowStore& store, const LockSpec& spec);

    Task<ExtendResult> extend(const Lease& lease) override;
    Task<void> release(const Lease& lease) override;

protected:
    Task<std::optional<Lease>> try_acquire() override;

private:
    Network& network_;
    NodeId store_node_;
    LeaseRowStore& store_;
    LockSpec spec_;
};

}  // namespace locksim
