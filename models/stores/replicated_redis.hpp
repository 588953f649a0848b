#pragma once
// Redis with asynchronous replicas and Sentinel-style failover (docs/models.md).
//
// 1. The primary acknowledges a write at once and streams it to each replica after the
//    replication lag; a replica applies it and acknowledges the offset.
// 2. Replicas never expire keys themselves; the primary's DEL reaches them like any write.
// 3. The sentinel pings the primary every second. After `down_after` without a reply it
//    asks the replicas for their offsets and promotes the one with the largest, which
//    from then on expires keys by its own clock. A lock that only the old primary had is
//    gone, and the new primary grants it again.
// 4. A client may follow each SET with WAIT n timeout: it keeps the lock only if n
//    replicas acknowledged in time. That narrows the window; it does not close it.
//
// Simplifications: one sentinel (no quorum vote); clients learn the new primary at once,
// as a Sentinel-aware client does on its next request; a returning old primary rejoins
// as a replica with a full resynchronisation that takes no time.
#include <memory>

#include "models/stores/store_deployment.hpp"

namespace locksim {

std::unique_ptr<StoreDeployment> deploy_replicated_redis(const StoreContext& context);

}  // namespace locksim
