#include "models/stores/redis_client.hpp"

#include <fmt/format.h>

#include "sim/rpc.hpp"

namespace locksim {
namespace {
std::int64_t whole_milliseconds(Duration d) { return d.ns / 1'000'000; }
}  // namespace

RedisLockClient::RedisLockClient(Host host, Network& network, NodeId store_node, RedisServer& store,
                                 const LockSpec& spec)
    : PollingLockClient(host, spec.retry), network_(network), store_node_(store_node), store_(store), spec_(spec),
      values_(host.random_stream("lock-values")) {}

Task<std::optional<Lease>> RedisLockClient::try_acquire() {
    const std::string value = values_.hex(8);
    const Instant sent = host_.monotonic_now();
    const auto label = fmt::format("SET {} {} NX PX {}", spec_.key, value, whole_milliseconds(spec_.ttl));
    auto request = call(
        network_, host_, store_node_, label,
        [store = &store_, key = spec_.key, value, ttl = spec_.ttl, client = host_.id()] {
            const bool ok = store->set_if_absent(key, value, ttl, client);
            return Answer<bool>{ok, ok ? "OK" : "(nil)"};
        },
        spec_.request_timeout);
    const auto granted = co_await request;
    if (!granted || !*granted) co_return std::nullopt;
    co_return Lease{spec_.key, value, std::nullopt, sent + spec_.ttl};
}

Task<ExtendResult> RedisLockClient::extend(const Lease& lease) {
    const Instant sent = host_.monotonic_now();
    const auto label =
        fmt::format("PEXPIRE {} {} IF value = {}", lease.key, whole_milliseconds(spec_.ttl), lease.value);
    auto request = call(
        network_, host_, store_node_, label,
        [store = &store_, key = lease.key, value = lease.value, ttl = spec_.ttl] {
            const int result = store->extend_if_equals(key, value, ttl);
            return Answer<int>{result, fmt::format("{}", result)};
        },
        spec_.request_timeout);
    const auto extended = co_await request;
    if (!extended) co_return ExtendResult{ExtendResult::Outcome::no_reply, {}};
    if (*extended == 0) co_return ExtendResult{ExtendResult::Outcome::refused, {}};
    co_return ExtendResult{ExtendResult::Outcome::extended, sent + spec_.ttl};
}

Task<void> RedisLockClient::release(const Lease& lease) {
    const bool plain = spec_.release == ReleaseMode::plain_delete;
    const auto label = plain ? fmt::format("DEL {}", lease.key) : fmt::format("DELEX {} IFEQ {}", lease.key, lease.value);
    auto request = call(
        network_, host_, store_node_, label,
        [store = &store_, key = lease.key, value = lease.value, plain, client = host_.id()] {
            const int deleted = plain ? store->del(key, client) : store->delete_if_equals(key, value, client);
            return Answer<int>{deleted, fmt::format("{}", deleted)};
        },
        spec_.request_timeout);
    co_await request;
}

}  // namespace locksim

namespace locksim {
namespace {

class RedisDeployment final : public StoreDeployment {
public:
    explicit RedisDeployment(const StoreContext& context)
        : context_(context), store_node_(context.node(context.world.store_nodes.at(0))),
          server_(Host(context.engine, store_node_), context.world.lock.persistence) {}

    std::unique_ptr<LockStoreClient> client_for(const Host& server) override {
        return std::make_unique<RedisLockClient>(server, context_.network, store_node_, server_, context_.world.lock);
    }

private:
    StoreContext context_;
    NodeId store_node_;
    RedisServer server_;
};

}  // namespace

std::unique_ptr<StoreDeployment> deploy_redis(const StoreContext& context) {
    return std::make_unique<RedisDeployment>(context);
}

}  // namespace locksim
