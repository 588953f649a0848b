#include "models/stores/kubernetes_lease_store.hpp"

#include <cassert>

#include "models/trace_kinds.hpp"

namespace locksim {

KubernetesApiServer::KubernetesApiServer(Host host, const std::string& name, std::int64_t first_token) : host_(host) {
    // What client-go's release writes: no holder, a one-second duration, the count kept.
    const Instant now = host_.wall_now();
    leases_[name] = StoredLease{LeaseObject{LeaseRecord{"", 1, now, now, first_token - 1}, ++revision_}, no_node, now};
}

LeaseReply KubernetesApiServer::get(const std::string& name) const {
    const auto found = leases_.find(name);
    if (found == leases_.end()) return LeaseReply{LeaseReply::Status::not_found, {}};
    return LeaseReply{LeaseReply::Status::ok, found->second.object};
}

LeaseReply KubernetesApiServer::create(const std::string& name, const LeaseRecord& spec, NodeId client) {
    if (leases_.contains(name)) {
        trace_conflict(name, client);  // 409 AlreadyExists: another candidate created it first
        return LeaseReply{LeaseReply::Status::conflict, {}};
    }
    return write(name, leases_[name], spec, client);
}

LeaseReply KubernetesApiServer::update(const std::string& name, const LeaseRecord& spec, std::int64_t resource_version,
                                       NodeId client) {
    const auto found = leases_.find(name);
    if (found == leases_.end()) return LeaseReply{LeaseReply::Status::not_found, {}};
    // Optimistic concurrency: the writer read an object someone has written since.
    if (found->second.object.resource_version != resource_version) {
        trace_conflict(name, client);
        return LeaseReply{LeaseReply::Status::conflict, {}};
    }
    return write(name, found->second, spec, client);
}

LeaseReply KubernetesApiServer::write(const std::string& name, StoredLease& lease, const LeaseRecord& spec,
                                      NodeId client) {
    const StoredLease before = lease;
    assert(spec.lease_transitions >= before.object.spec.lease_transitions);  // client-go never lowers the count
    lease.object = LeaseObject{spec, ++revision_};
    lease.expires_at = host_.wall_now() + seconds(spec.lease_duration_seconds);
    if (spec.holder_identity.empty())
        lease.holder = no_node;
    else if (spec.holder_identity != before.object.spec.holder_identity)
        lease.holder = client;
    trace_write(name, before, lease, client);
    return LeaseReply{LeaseReply::Status::ok, lease.object};
}

void KubernetesApiServer::trace_conflict(const std::string& name, NodeId client) {
    host_.record(trace_kind::lock_refused, {{"key", name}, {"client", client}});
}

void KubernetesApiServer::trace_write(const std::string& name, const StoredLease& before, const StoredLease& after,
                                      NodeId client) {
    const LeaseRecord& old_spec = before.object.spec;
    const LeaseRecord& new_spec = after.object.spec;
    const bool was_held = !old_spec.holder_identity.empty();
    if (new_spec.holder_identity.empty()) {
        // client-go's release checks only the releaser's own last observation, not the
        // record it read: a release by someone other than the holder skipped the check.
        if (was_held)
            host_.record(trace_kind::lock_released, {{"key", name},
                                                     {"value", old_spec.holder_identity},
                                                     {"token", old_spec.lease_transitions},
                                                     {"holder", before.holder},
                                                     {"by", client},
                                                     {"plain", client != before.holder}});
        return;
    }
    if (new_spec.holder_identity == old_spec.holder_identity) {
        host_.record(trace_kind::lock_renewed, {{"key", name},
                                                {"value", new_spec.holder_identity},
                                                {"token", new_spec.lease_transitions},
                                                {"holder", after.holder},
                                                {"expires_at", after.expires_at}});
        return;
    }
    // A takeover: the API server let the old lease go only now, when a candidate that had
    // judged it run out by its own clock wrote over it.
    // The token is leaseTransitions: a new holder's is above every one granted before (a
    // Lease just created, at resourceVersion 0 before, has had no holder).
    assert(before.object.resource_version == 0 || new_spec.lease_transitions > old_spec.lease_transitions);
    if (was_held)
        host_.record(trace_kind::lock_expired, {{"key", name},
                                                {"value", old_spec.holder_identity},
                                                {"token", old_spec.lease_transitions},
                                                {"holder", before.holder},
                                                {"expires_at", before.expires_at}});
    host_.record(trace_kind::lock_granted, {{"key", name},
                                            {"value", new_spec.holder_identity},
                                            {"token", new_spec.lease_transitions},
                                            {"holder", after.holder},
                                            {"ttl", seconds(new_spec.lease_duration_seconds)},
                                            {"expires_at", after.expires_at}});
}

}  // namespace locksim
