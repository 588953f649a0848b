#include "models/stores/lease_row_client.hpp"

#include <fmt/format.h>

#include "models/sql_text.hpp"
#include "sim/duration_text.hpp"
#include "sim/rpc.hpp"

namespace locksim {

LeaseRowLockClient::LeaseRowLockClient(Host host, Network& network, NodeId store_node, LeaseRowStore& store,
                                       const LockSpec& spec)
    : PollingLockClient(host, spec.retry), network_(network), store_node_(store_node), store_(store), spec_(spec) {}

Task<std::optional<Lease>> LeaseRowLockClient::try_acquire() {
    const Instant sent = host_.monotonic_now();
    auto label = deferred_label(
        "UPDATE leases SET owner='{}', lease_until=now()+'{}', fence=fence+1 WHERE name='{}' AND lease_until < now() "
        "RETURNING fence",
        host_.name(), spec_.ttl, spec_.key);
    auto request = call(
        network_, host_, store_node_, std::move(label),
        [store = &store_, key = spec_.key, owner = host_.name(), ttl = spec_.ttl, client = host_.id()] {
            const auto granted = store->claim(key, owner, ttl, client);
            return Answer<std::optional<std::int64_t>>{granted,
                                                       granted ? deferred_label("fence {}", *granted) : "0 rows"};
        },
        spec_.request_timeout);
    const auto fence = co_await request;
    if (!fence || !*fence) co_return std::nullopt;
    co_return Lease{spec_.key, host_.name(), **fence, sent + spec_.ttl};
}

Task<ExtendResult> LeaseRowLockClient::extend(const Lease& lease) {
    const Instant sent = host_.monotonic_now();
    auto label = deferred_label(
        "UPDATE leases SET lease_until=now()+'{}' WHERE name='{}' AND owner='{}' AND fence={} AND lease_until > now()",
        spec_.ttl, lease.key, lease.value, *lease.token);
    auto request = call(
        network_, host_, store_node_, std::move(label),
        [store = &store_, key = lease.key, owner = lease.value, fence = *lease.token, ttl = spec_.ttl] {
            const int changed = store->extend(key, owner, fence, ttl);
            return Answer<int>{changed, rows_label(changed)};
        },
        spec_.request_timeout);
    const auto rows = co_await request;
    if (!rows) co_return ExtendResult{ExtendResult::Outcome::no_reply, {}};
    if (*rows == 0) co_return ExtendResult{ExtendResult::Outcome::refused, {}};
    co_return ExtendResult{ExtendResult::Outcome::extended, sent + spec_.ttl};
}

Task<void> LeaseRowLockClient::release(const Lease& lease) {
    const bool check_owner = spec_.release == ReleaseMode::compare_and_delete;
    MessageText label =
        check_owner ? deferred_label("UPDATE leases SET lease_until=now() WHERE name='{}' AND owner='{}' AND fence={}",
                                     lease.key, lease.value, *lease.token)
                    : deferred_label("UPDATE leases SET lease_until=now() WHERE name='{}'", lease.key);
    auto request = call(
        network_, host_, store_node_, std::move(label),
        [store = &store_, key = lease.key, owner = lease.value, fence = *lease.token, check_owner,
         client = host_.id()] {
            const int changed = store->release(key, owner, fence, check_owner, client);
            return Answer<int>{changed, rows_label(changed)};
        },
        spec_.request_timeout);
    co_await request;
}

std::unique_ptr<StoreDeployment> deploy_lease_row(const StoreContext& context) {
    return std::make_unique<SingleNodeDeployment<LeaseRowStore, LeaseRowLockClient>>(context,
                                                                                     context.world.lock.first_token);
}

}  // namespace locksim
