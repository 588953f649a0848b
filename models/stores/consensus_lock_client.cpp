#include "models/stores/consensus_lock_client.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/stores/client_profiles.hpp"
#include "sim/duration_text.hpp"
#include "sim/rpc.hpp"

namespace locksim {
namespace {

// The request handlers, as coroutine functions with by-value parameters: a handler that
// waits outlives the message that carried it.
Task<Answer<std::optional<std::int64_t>>> serve_open(ConsensusEnsemble* ensemble, NodeId client, Duration timeout,
                                                     bool zookeeper) {
    const auto session = co_await ensemble->open_session(client, timeout);
    if (!session) co_return Answer<std::optional<std::int64_t>>{std::nullopt, "not the leader"};
    co_return Answer<std::optional<std::int64_t>>{
        session, zookeeper ? fmt::format("session 0x{:x}", *session) : fmt::format("lease {:x}", 0x694d000 + *session)};
}

Task<Answer<std::optional<ConsensusKey>>> serve_create(ConsensusEnsemble* ensemble, std::string prefix,
                                                       std::int64_t session, NodeId client, bool zookeeper) {
    const auto key = co_await ensemble->create(std::move(prefix), session, client);
    if (!key) co_return Answer<std::optional<ConsensusKey>>{std::nullopt, "session expired"};
    co_return Answer<std::optional<ConsensusKey>>{
        key, zookeeper ? fmt::format("{} (czxid {})", key->path, key->create_revision)
                       : fmt::format("created {} at revision {}", key->path, key->create_revision)};
}

Task<Answer<std::optional<bool>>> serve_remove(ConsensusEnsemble* ensemble, std::string path, NodeId by) {
    const auto removed = co_await ensemble->remove(std::move(path), by);
    co_return Answer<std::optional<bool>>{removed, !removed ? "not the leader" : *removed ? "deleted" : "no node"};
}

}  // namespace

ConsensusLockClient::ConsensusLockClient(Host host, Network& network, ConsensusEnsemble& ensemble, const LockSpec& spec)
    : host_(host), network_(network), ensemble_(ensemble), spec_(spec) {}

// What the client asks for, and what the cluster grants when it clamps it.
std::string ConsensusLockClient::connect_label() const {
    const Duration granted = granted_timeout();
    if (zookeeper())
        return granted == spec_.ttl ? fmt::format("connect (session timeout {})", format_duration(spec_.ttl))
                                    : fmt::format("connect (session timeout {}, granted {})",
                                                  format_duration(spec_.ttl), format_duration(granted));
    // etcd's TTL is whole seconds.
    const auto whole_seconds = [](Duration d) { return d.ns / 1'000'000'000; };
    return granted == spec_.ttl
               ? fmt::format("LeaseGrant TTL={}", whole_seconds(spec_.ttl))
               : fmt::format("LeaseGrant TTL={} (granted {})", whole_seconds(spec_.ttl), whole_seconds(granted));
}

Task<std::int64_t> ConsensusLockClient::open_session() {
    for (;;) {
        const Instant sent = host_.monotonic_now();
        auto request = call(
            network_, host_, ensemble_.leader_node(), connect_label(),
            [ensemble = &ensemble_, client = host_.id(), ttl = spec_.ttl, zk = zookeeper()] {
                return serve_open(ensemble, client, ttl, zk);
            },
            spec_.request_timeout);
        const auto reply = co_await request;
        if (reply && *reply) {
            session_ = **reply;
            session_expired_ = false;
            heard_until_ = heard_from(sent) + client_of(spec_).believed_for(granted_timeout());
            host_.spawn(keep_alive(**reply));
            co_return **reply;
        }
    }
}

// When the session was last heard alive, by its client's reckoning: the request's send
// (a slow answer only shortens what it believes) or the answer's arrival (etcd's
// clientv3, which counts the deadline from when it processes the keep-alive's answer).
Instant ConsensusLockClient::heard_from(Instant sent) const {
    return client_of(spec_).deadline == ClientProfile::Deadline::from_answer ? host_.monotonic_now() : sent;
}

// The session's heartbeats, as its client library sends them (a third of the timeout after
// each answer, for most), and after one that got none, again as soon as the library retries.
Task<void> ConsensusLockClient::keep_alive(std::int64_t session) {
    const ClientProfile& client = client_of(spec_);
    Duration wait = client.heartbeat_interval(granted_timeout());
    for (;;) {
        co_await host_.sleep(wait);
        wait = client.heartbeat_interval(granted_timeout());
        if (session_ != session) co_return;  // a newer session replaced this one
        const Instant sent = host_.monotonic_now();
        auto request = call(
            network_, host_, ensemble_.leader_node(),
            zookeeper() ? fmt::format("ping session 0x{:x}", session)
                        : fmt::format("LeaseKeepAlive {:x}", 0x694d000 + session),
            [ensemble = &ensemble_, session] {
                const auto alive = ensemble->heartbeat(session);
                return Answer<std::optional<bool>>{alive, !alive   ? "not the leader"
                                                          : *alive ? "ok"
                                                                   : "session expired"};
            },
            spec_.request_timeout);
        const auto reply = co_await request;
        if (session_ != session) co_return;
        if (!reply || !*reply) {  // no leader answered: try again
            wait = client.retry_unanswered.value_or(wait);
            continue;
        }
        if (**reply) {
            heard_until_ = heard_from(sent) + client_of(spec_).believed_for(granted_timeout());
            continue;
        }
        session_expired_ = true;
        woken_.notify_all(host_.engine());
        co_return;
    }
}

Task<std::optional<ConsensusKey>> ConsensusLockClient::create_own_key(std::int64_t session) {
    for (;;) {
        const std::string label = zookeeper() ? fmt::format("create {}/lock- EPHEMERAL_SEQUENTIAL", spec_.key)
                                              : fmt::format("Txn if create_revision({}/{:x}) == 0 then Put lease {:x}",
                                                            spec_.key, 0x694d000 + session, 0x694d000 + session);
        auto request = call(
            network_, host_, ensemble_.leader_node(), label,
            [ensemble = &ensemble_, prefix = spec_.key, session, client = host_.id(), zk = zookeeper()] {
                return serve_create(ensemble, prefix, session, client, zk);
            },
            spec_.request_timeout);
        const auto reply = co_await request;
        if (reply) co_return *reply;  // the key, or nullopt: the session is gone
        // No answer: the create may or may not have happened. Look for a key of ours, as
        // Curator's protected mode does, before creating another.
        const auto waiters = co_await list_waiters();
        for (const auto& key : waiters)
            if (key.session == session) co_return key;
    }
}

Task<std::vector<ConsensusKey>> ConsensusLockClient::list_waiters() {
    for (;;) {
        auto request = call(
            network_, host_, ensemble_.leader_node(),
            zookeeper() ? fmt::format("getChildren {}", spec_.key)
                        : fmt::format("Range {}/ sort by create_revision", spec_.key),
            [ensemble = &ensemble_, prefix = spec_.key] {
                auto keys = ensemble->children(prefix);
                std::string shown = keys ? fmt::format("{} waiting", keys->size()) : "not the leader";
                return Answer<std::optional<std::vector<ConsensusKey>>>{std::move(keys), shown};
            },
            spec_.request_timeout);
        const auto reply = co_await request;
        if (reply && *reply) co_return **reply;
    }
}

Task<bool> ConsensusLockClient::watch_deletion(const std::string& path) {
    for (;;) {
        auto request = call(
            network_, host_, ensemble_.leader_node(),
            zookeeper() ? fmt::format("exists {} watch", path) : fmt::format("Watch {} (delete)", path),
            [ensemble = &ensemble_, path, client = host_.id(), woken = &woken_, engine = &host_.engine()] {
                const auto watching = ensemble->watch(path, client, [woken, engine] { woken->notify_all(*engine); });
                return Answer<std::optional<bool>>{watching, !watching   ? "not the leader"
                                                             : *watching ? "watching"
                                                                         : "gone"};
            },
            spec_.request_timeout);
        const auto reply = co_await request;
        if (reply && *reply) co_return **reply;
    }
}

Task<Lease> ConsensusLockClient::acquire() {
    for (;;) {
        if (!session_ || session_expired_) co_await open_session();
        const std::int64_t session = *session_;
        const auto own = co_await create_own_key(session);
        if (!own) {
            session_.reset();
            continue;
        }
        for (;;) {
            const auto waiters = co_await list_waiters();
            auto mine = std::find_if(waiters.begin(), waiters.end(),
                                     [&](const ConsensusKey& k) { return k.path == own->path; });
            if (mine == waiters.end()) break;  // our key is gone: the session expired while we waited
            if (mine == waiters.begin()) co_return Lease{spec_.key, own->path, own->create_revision, heard_until_};
            const ConsensusKey& target = spec_.consensus.watch_holder ? waiters.front() : *(mine - 1);
            const bool watching = co_await watch_deletion(target.path);
            if (!watching) continue;  // already gone: look again
            co_await woken_.wait(host_);
            if (session_expired_) break;
        }
        session_.reset();
    }
}

Task<ExtendResult> ConsensusLockClient::extend(const Lease&) {
    // Nothing to send: the session's own heartbeats keep the lease. Report what they found.
    if (session_expired_ || !session_) co_return ExtendResult{ExtendResult::Outcome::refused, {}};
    co_return ExtendResult{ExtendResult::Outcome::extended, heard_until_};
}

bool ConsensusLockClient::watches_lock() const {
    return client_of(spec_).deadline != ClientProfile::Deadline::from_request;
}

Task<std::string> ConsensusLockClient::watch_for_loss(const Lease&) {
    const std::optional<std::int64_t> session = session_;
    while (!session_expired_ && session_ == session) co_await woken_.wait(host_);
    co_return zookeeper() ? "its session expired (the client reports the connection LOST)"
                          : "its session's lease expired (the keep-alive channel closed)";
}

Task<void> ConsensusLockClient::release(const Lease& lease) {
    if (session_expired_) co_return;  // the cluster already deleted the key with the session
    auto request = call(
        network_, host_, ensemble_.leader_node(),
        zookeeper() ? fmt::format("delete {}", lease.value) : fmt::format("Delete {}", lease.value),
        [ensemble = &ensemble_, path = lease.value, by = host_.id()] { return serve_remove(ensemble, path, by); },
        spec_.request_timeout);
    co_await request;
}

namespace {

class ConsensusDeployment final : public StoreDeployment {
public:
    ConsensusDeployment(const StoreContext& context, ConsensusEnsemble::Flavor flavor)
        : context_(context),
          ensemble_(context.engine, context.network, nodes_of(context), context.world.lock, flavor) {}

    using StoreDeployment::client_for;
    std::unique_ptr<LockStoreClient> client_for(const Host& server, const LockSpec& lock) override {
        return std::make_unique<ConsensusLockClient>(server, context_.network, ensemble_, lock);
    }

private:
    const LockSpec& world_lock() const override { return context_.world.lock; }
    static std::vector<NodeId> nodes_of(const StoreContext& context) {
        std::vector<NodeId> nodes;
        for (const auto& name : context.world.store_nodes) nodes.push_back(context.node(name));
        return nodes;
    }

    StoreContext context_;
    ConsensusEnsemble ensemble_;
};

}  // namespace

std::unique_ptr<StoreDeployment> deploy_zookeeper(const StoreContext& context) {
    return std::make_unique<ConsensusDeployment>(context, ConsensusEnsemble::Flavor::zookeeper);
}

std::unique_ptr<StoreDeployment> deploy_etcd(const StoreContext& context) {
    return std::make_unique<ConsensusDeployment>(context, ConsensusEnsemble::Flavor::etcd);
}

}  // namespace locksim
