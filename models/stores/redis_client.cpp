#include "models/stores/redis_client.hpp"

#include <fmt/format.h>

namespace locksim {

RedisLockClient::RedisLockClient(Host host, Network& network, NodeId store_node, RedisServer& store,
                                 const LockSpec& spec)
    : PollingLockClient(host, spec.retry),
      connection_(network, host, store_node, store, spec.request_timeout),
      spec_(spec),
      values_(host.random_stream("lock-values")) {}

Task<std::optional<Lease>> RedisLockClient::try_acquire() {
    const std::string value = values_.hex(8);
    const Instant sent = host_.monotonic_now();
    const auto granted = co_await connection_.grant(
        spec_.key, value, spec_.expires ? std::optional(spec_.ttl) : std::nullopt, spec_.token_counter);
    if (!granted) co_return std::nullopt;
    co_return Lease{spec_.key, value, granted->token, spec_.expires ? sent + spec_.ttl : never};
}

Task<ExtendResult> RedisLockClient::extend(const Lease& lease) {
    const Instant sent = host_.monotonic_now();
    const auto extended = co_await connection_.extend_if_equals(lease.key, lease.value, spec_.ttl);
    if (!extended) co_return ExtendResult{ExtendResult::Outcome::no_reply, {}};
    if (*extended == 0) co_return ExtendResult{ExtendResult::Outcome::refused, {}};
    co_return ExtendResult{ExtendResult::Outcome::extended, sent + spec_.ttl};
}

Task<void> RedisLockClient::release(const Lease& lease) {
    co_await connection_.release(lease.key, lease.value, spec_.release == ReleaseMode::plain_delete);
}

std::unique_ptr<StoreDeployment> deploy_redis(const StoreContext& context) {
    return std::make_unique<SingleNodeDeployment<RedisServer, RedisLockClient>>(context,
                                                                                context.world.lock.persistence);
}

}  // namespace locksim
