#include "models/stores/redlock_client.hpp"

#include <memory>

#include "models/stores/client_profiles.hpp"
#include "sim/gather.hpp"

namespace locksim {
namespace {

// SET's true/false as the 1/0 the other commands reply, so one counter serves all.
Task<std::optional<int>> as_count(Task<std::optional<bool>> reply) {
    const std::optional<bool> ok = co_await reply;
    if (!ok) co_return std::nullopt;
    co_return *ok ? 1 : 0;
}

}  // namespace

RedlockClient::RedlockClient(Host host, std::vector<RedisConnection> nodes, const LockSpec& spec)
    : PollingLockClient(host, spec.retry),
      nodes_(std::move(nodes)),
      spec_(spec),
      values_(host.random_stream("lock-values")) {}

Task<std::size_t> RedlockClient::count_yes(std::vector<Task<std::optional<int>>> replies) {
    const std::vector<std::optional<int>> answers = co_await gather(host_, std::move(replies));
    std::size_t yes = 0;
    for (const auto& answer : answers)
        if (answer && *answer == 1) ++yes;
    co_return yes;
}

Duration RedlockClient::drift() const {
    return spec_.ttl / 100 + client_of(spec_).redlock_drift_allowance;
}

Task<std::optional<Lease>> RedlockClient::try_acquire() {
    const std::string value = values_.hex(8);
    const Instant started = host_.monotonic_now();
    std::vector<Task<std::optional<int>>> replies;
    for (const auto& node : nodes_) replies.push_back(as_count(node.set_if_absent(spec_.key, value, spec_.ttl)));
    const std::size_t granted = co_await count_yes(std::move(replies));
    const Duration elapsed = host_.monotonic_now() - started;
    const Duration validity = spec_.ttl - elapsed - drift();
    if (granted >= majority() && validity.ns > 0)
        co_return Lease{spec_.key, value, std::nullopt, started + spec_.ttl - drift()};
    co_await release_everywhere(value);
    co_return std::nullopt;
}

Task<ExtendResult> RedlockClient::extend(const Lease& lease) {
    const Instant started = host_.monotonic_now();
    std::vector<Task<std::optional<int>>> replies;
    for (const auto& node : nodes_) replies.push_back(node.extend_if_equals(lease.key, lease.value, spec_.ttl));
    const std::size_t extended = co_await count_yes(std::move(replies));
    const Duration validity = spec_.ttl - (host_.monotonic_now() - started) - drift();
    if (extended >= majority() && validity.ns > 0)
        co_return ExtendResult{ExtendResult::Outcome::extended, started + spec_.ttl - drift()};
    co_return ExtendResult{ExtendResult::Outcome::refused, {}};
}

Task<void> RedlockClient::release(const Lease& lease) {
    co_await release_everywhere(lease.value);
}

Task<void> RedlockClient::release_everywhere(const std::string& value) {
    const bool plain = spec_.release == ReleaseMode::plain_delete;
    std::vector<Task<std::optional<int>>> replies;
    for (const auto& node : nodes_) replies.push_back(node.release(spec_.key, value, plain));
    co_await count_yes(std::move(replies));
}

namespace {

class RedlockDeployment final : public StoreDeployment {
public:
    explicit RedlockDeployment(const StoreContext& context) : context_(context) {
        for (const auto& name : context.world.store_nodes) {
            const NodeId node = context.node(name);
            nodes_.push_back(node);
            servers_.push_back(
                std::make_unique<RedisServer>(Host(context.engine, node), context.world.lock.persistence));
        }
    }

    using StoreDeployment::client_for;
    std::unique_ptr<LockStoreClient> client_for(const Host& server, const LockSpec& lock) override {
        std::vector<RedisConnection> connections;
        for (std::size_t i = 0; i < nodes_.size(); ++i)
            connections.emplace_back(context_.network, server, nodes_[i], *servers_[i], lock.redlock.node_timeout);
        return std::make_unique<RedlockClient>(server, std::move(connections), lock);
    }

private:
    const LockSpec& world_lock() const override { return context_.world.lock; }
    StoreContext context_;
    std::vector<NodeId> nodes_;
    std::vector<std::unique_ptr<RedisServer>> servers_;
};

}  // namespace

std::unique_ptr<StoreDeployment> deploy_redlock(const StoreContext& context) {
    return std::make_unique<RedlockDeployment>(context);
}

}  // namespace locksim
