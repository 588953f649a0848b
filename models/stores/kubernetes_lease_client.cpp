#include "models/stores/kubernetes_lease_client.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "sim/duration_text.hpp"
#include "sim/rpc.hpp"

namespace locksim {
namespace {

// The request's path as kubectl names the object: the whole of it,
// /apis/coordination.k8s.io/v1/namespaces/default/leases/NAME, is one word too wide for
// the reports' figures.
std::string lease_path(const std::string& name) {
    return fmt::format("leases/{}", name);
}

std::string holder_text(const LeaseRecord& record) {
    return record.holder_identity.empty() ? "\"\"" : record.holder_identity;
}

std::string read_label(const LeaseReply& reply) {
    if (reply.status == LeaseReply::Status::not_found) return "404 Not Found";
    return fmt::format("200 OK holderIdentity={} leaseTransitions={} resourceVersion={}",
                       holder_text(reply.object.spec), reply.object.spec.lease_transitions,
                       reply.object.resource_version);
}

std::string write_label(const LeaseReply& reply, std::string_view written, std::string_view refused) {
    switch (reply.status) {
        case LeaseReply::Status::ok:
            return fmt::format("{} resourceVersion={}", written, reply.object.resource_version);
        case LeaseReply::Status::conflict: return std::string(refused);
        case LeaseReply::Status::not_found: break;
    }
    return "404 Not Found";
}

}  // namespace

KubernetesLeaseLockClient::KubernetesLeaseLockClient(Host host, Network& network, NodeId api_server_node,
                                                     KubernetesApiServer& api_server, const LockSpec& spec)
    : PollingLockClient(host, spec.retry),
      network_(network),
      api_server_node_(api_server_node),
      api_server_(api_server),
      spec_(spec) {}

// What this client writes to hold the lease now; client-go records whole seconds.
LeaseRecord KubernetesLeaseLockClient::own_record() const {
    const Instant now = host_.wall_now();
    return LeaseRecord{host_.name(), spec_.ttl.ns / seconds(1).ns, now, now, 0};
}

// Whether the lease last observed is still running by this node's own clock: client-go
// compares times that carry Go's monotonic reading, so a wall-clock step changes nothing,
// but a clock that runs fast ends the lease early.
bool KubernetesLeaseLockClient::lease_valid() const {
    return observed_time_ + seconds(observed_record_.lease_duration_seconds) > host_.monotonic_now();
}

void KubernetesLeaseLockClient::observe(const LeaseRecord& record) {
    observed_record_ = record;
    observed_time_ = host_.monotonic_now();
}

// A request waits for its reply up to the client's timeout, and not past the renewal
// round's deadline: client-go passes the round's context to every request.
std::optional<Duration> KubernetesLeaseLockClient::time_for_request(std::optional<Instant> deadline) const {
    if (!deadline) return spec_.request_timeout;
    return std::min(spec_.request_timeout, *deadline - host_.monotonic_now());
}

Task<std::optional<LeaseReply>> KubernetesLeaseLockClient::get(std::optional<Instant> deadline) {
    if (deadline && host_.monotonic_now() >= *deadline) co_return std::nullopt;
    auto request = call(
        network_, host_, api_server_node_, fmt::format("GET {}", lease_path(spec_.key)),
        [server = &api_server_, key = spec_.key] {
            const LeaseReply reply = server->get(key);
            return Answer<LeaseReply>{reply, read_label(reply)};
        },
        time_for_request(deadline));
    co_return co_await request;
}

Task<bool> KubernetesLeaseLockClient::create(LeaseRecord record, std::optional<Instant> deadline) {
    if (deadline && host_.monotonic_now() >= *deadline) co_return false;
    const auto label = fmt::format("POST leases name={} holderIdentity={} leaseTransitions={}", spec_.key,
                                   holder_text(record), record.lease_transitions);
    auto request = call(
        network_, host_, api_server_node_, label,
        [server = &api_server_, key = spec_.key, record, client = host_.id()] {
            const LeaseReply reply = server->create(key, record, client);
            return Answer<LeaseReply>{reply, write_label(reply, "201 Created", "409 AlreadyExists")};
        },
        time_for_request(deadline));
    const auto reply = co_await request;
    if (!reply || reply->status != LeaseReply::Status::ok) co_return false;
    resource_version_ = reply->object.resource_version;
    observe(record);
    co_return true;
}

Task<KubernetesLeaseLockClient::Written> KubernetesLeaseLockClient::update(LeaseRecord record,
                                                                           std::int64_t resource_version,
                                                                           std::optional<Instant> deadline) {
    if (deadline && host_.monotonic_now() >= *deadline) co_return Written::no_reply;
    const auto label =
        fmt::format("PUT {} resourceVersion={} holderIdentity={} leaseTransitions={}", lease_path(spec_.key),
                    resource_version, holder_text(record), record.lease_transitions);
    auto request = call(
        network_, host_, api_server_node_, label,
        [server = &api_server_, key = spec_.key, record, resource_version, client = host_.id()] {
            const LeaseReply reply = server->update(key, record, resource_version, client);
            return Answer<LeaseReply>{reply, write_label(reply, "200 OK", "409 Conflict")};
        },
        time_for_request(deadline));
    const auto reply = co_await request;
    if (!reply) co_return Written::no_reply;
    if (reply->status != LeaseReply::Status::ok) co_return Written::conflict;
    resource_version_ = reply->object.resource_version;
    observe(record);
    co_return Written::yes;
}

Task<bool> KubernetesLeaseLockClient::try_acquire_or_renew(std::optional<Instant> deadline) {
    // 1. The leader's fast path: write over the object it last saw, as if nobody else had.
    if (is_leader() && lease_valid() && resource_version_) {
        LeaseRecord renewal = own_record();
        renewal.acquire_time = observed_record_.acquire_time;
        renewal.lease_transitions = observed_record_.lease_transitions;
        auto renewing = update(renewal, *resource_version_, deadline);
        if (co_await renewing == Written::yes) co_return true;
    }
    // 2. Read the Lease; create it if there is none.
    auto reading = get(deadline);
    const std::optional<LeaseReply> read = co_await reading;
    if (!read) co_return false;
    if (read->status == LeaseReply::Status::not_found) {
        auto creating = create(own_record(), deadline);
        co_return co_await creating;
    }
    const LeaseRecord& current = read->object.spec;
    resource_version_ = read->object.resource_version;
    // 3. A record unlike the last one read restarts this node's count of lease_duration.
    if (read_record_ != current) {
        observe(current);
        read_record_ = current;
    }
    if (!current.holder_identity.empty() && lease_valid() && !is_leader()) co_return false;
    // 4. Renew what is ours, or take the lease over: a new holder counts a transition.
    LeaseRecord mine = own_record();
    if (is_leader()) {
        mine.acquire_time = current.acquire_time;
        mine.lease_transitions = current.lease_transitions;
    } else {
        mine.lease_transitions = current.lease_transitions + 1;
    }
    auto writing = update(mine, read->object.resource_version, deadline);
    co_return co_await writing == Written::yes;
}

Task<std::optional<Lease>> KubernetesLeaseLockClient::try_acquire() {
    auto trying = try_acquire_or_renew(std::nullopt);
    if (!co_await trying) co_return std::nullopt;
    // No deadline on any clock: the leader leads until a renewal round fails.
    co_return Lease{spec_.key, host_.name(), observed_record_.lease_transitions, never};
}

// Try at once, then every retry_period, until a try succeeds or renew_deadline has passed
// since the round began. The round's clock starts when the round does: time spent before
// it (a pause between rounds) counts for nothing.
Task<ExtendResult> KubernetesLeaseLockClient::extend(const Lease&) {
    const Instant deadline = host_.monotonic_now() + spec_.kubernetes.renew_deadline;
    Instant next_try = host_.monotonic_now();
    for (;;) {
        auto trying = try_acquire_or_renew(deadline);
        if (co_await trying) co_return ExtendResult{ExtendResult::Outcome::extended, never};
        next_try = next_try + spec_.kubernetes.retry_period;
        const Instant wake = std::min(next_try, deadline);
        if (wake > host_.monotonic_now()) co_await host_.sleep(wake - host_.monotonic_now());
        // client-go's "failed to renew lease": every try may have gone unanswered (a
        // partition) as well as refused, so the reason says what is known.
        if (host_.monotonic_now() >= deadline)
            co_return ExtendResult{ExtendResult::Outcome::refused,
                                   {},
                                   fmt::format("renewal failed: none went through within its renew deadline ({})",
                                               format_duration(spec_.kubernetes.renew_deadline))};
    }
}

// client-go's tryRelease: read the Lease, and if this client's own last observation says
// it leads, write a record without a holder over what it read (again on a conflict). It
// does not look at the holder it just read: a leader that never saw a takeover (its
// renewals got no reply) clears the new holder's lease.
Task<void> KubernetesLeaseLockClient::release(const Lease&) {
    const Instant deadline = host_.monotonic_now() + spec_.kubernetes.renew_deadline;
    for (;;) {
        auto reading = get(deadline);
        const std::optional<LeaseReply> read = co_await reading;
        if (!read || read->status != LeaseReply::Status::ok || !is_leader()) co_return;
        resource_version_ = read->object.resource_version;
        const Instant now = host_.wall_now();
        const LeaseRecord released{"", 1, now, now, read->object.spec.lease_transitions};
        auto writing = update(released, read->object.resource_version, deadline);
        if (co_await writing != Written::conflict) co_return;
    }
}

std::unique_ptr<StoreDeployment> deploy_kubernetes_lease(const StoreContext& context) {
    return std::make_unique<SingleNodeDeployment<KubernetesApiServer, KubernetesLeaseLockClient>>(
        context, context.world.lock.key, context.world.lock.first_token);
}

}  // namespace locksim
