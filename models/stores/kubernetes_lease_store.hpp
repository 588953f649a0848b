#pragma once
// The Kubernetes API server's side of a Lease (coordination.k8s.io/v1) as client-go's
// leader election uses it (docs/models.md). The server judges nothing about time:
// it stores what a client PUTs if the resourceVersion the client read is still the
// object's (optimistic concurrency), and answers 409 Conflict otherwise. Whether a lease
// has run out is each candidate's own judgement, on its own clock
// (models/stores/kubernetes_lease_client.hpp).
//
// Since nothing expires here, the trace tells what the writes mean: lock.granted when a
// write names a new holder, lock.renewed when it names the same one again, lock.released
// when it clears the holder, and lock.expired just before a write that names a new holder
// over an old one: that takeover is the moment the old holder's lease ended at the store.
#include <cstdint>
#include <map>
#include <string>

#include "sim/host.hpp"

namespace locksim {

// A Lease's spec as client-go writes it (its LeaderElectionRecord). The times are readings
// of the writer's wall clock, which nobody acts on; a renewal changes them, and a
// candidate takes a record that keeps changing for a sign that its holder is alive.
struct LeaseRecord {
    std::string holder_identity;  // empty: released
    std::int64_t lease_duration_seconds = 0;
    Instant acquire_time;
    Instant renew_time;
    std::int64_t lease_transitions = 0;  // client-go adds one whenever the holder's identity changes

    bool operator==(const LeaseRecord&) const = default;
};

struct LeaseObject {
    LeaseRecord spec;
    std::int64_t resource_version = 0;  // opaque to clients; here etcd's revision, raised by every write
};

// What the API server answers: the object it now has, or why not.
struct LeaseReply {
    enum class Status {
        ok,         // 200 OK (GET, PUT), 201 Created (POST)
        not_found,  // 404: no Lease of that name
        conflict,   // 409: the resourceVersion was not the object's (PUT), or the Lease exists (POST)
    };
    Status status = Status::not_found;
    LeaseObject object;  // when ok
};

class KubernetesApiServer {
public:
    // No Lease yet: the first candidate creates it, with leaseTransitions 0.
    explicit KubernetesApiServer(Host host) : host_(host) {}
    // The Lease `name` exists, released by an earlier leader: its next holder gets
    // leaseTransitions `first_token`.
    KubernetesApiServer(Host host, const std::string& name, std::int64_t first_token);

    LeaseReply get(const std::string& name) const;
    LeaseReply create(const std::string& name, const LeaseRecord& spec, NodeId client);
    LeaseReply update(const std::string& name, const LeaseRecord& spec, std::int64_t resource_version, NodeId client);

private:
    struct StoredLease {
        LeaseObject object;
        NodeId holder;       // the client that wrote the current holder in, for the trace
        Instant expires_at;  // the last write plus leaseDurationSeconds on this clock: what the record claims
    };

    LeaseReply write(const std::string& name, StoredLease& lease, const LeaseRecord& spec, NodeId client);
    void trace_write(const std::string& name, const StoredLease& before, const StoredLease& after, NodeId client);
    void trace_conflict(const std::string& name, NodeId client);

    Host host_;
    std::int64_t revision_ = 0;
    std::map<std::string, StoredLease> leases_;
};

}  // namespace locksim
