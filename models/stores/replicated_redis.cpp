#include "models/stores/replicated_redis.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "models/stores/redis_connection.hpp"
#include "models/stores/redis_server.hpp"
#include "models/trace_kinds.hpp"
#include "sim/condition.hpp"
#include "sim/duration_text.hpp"
#include "sim/gather.hpp"
#include "sim/rpc.hpp"

namespace locksim {
namespace {

class ReplicatedRedis;

class ReplicatedRedisClient final : public PollingLockClient {
public:
    ReplicatedRedisClient(Host host, ReplicatedRedis& store, const LockSpec& spec)
        : PollingLockClient(host, spec.retry), store_(store), spec_(spec), values_(host.random_stream("lock-values")) {}

    Task<ExtendResult> extend(const Lease& lease) override;
    Task<void> release(const Lease& lease) override;

protected:
    Task<std::optional<Lease>> try_acquire() override;

private:
    RedisConnection primary() const;

    ReplicatedRedis& store_;
    LockSpec spec_;
    RandomStream values_;
};

class ReplicatedRedis final : public StoreDeployment {
public:
    explicit ReplicatedRedis(const StoreContext& context) : context_(context), spec_(context.world.lock) {
        const auto& names = context.world.store_nodes;  // primary, replicas…, sentinel
        for (std::size_t i = 0; i + 1 < names.size(); ++i) {
            Member member{context.node(names[i]), nullptr, 0, 0};
            member.server = std::make_unique<RedisServer>(Host(context.engine, member.node), spec_.persistence);
            members_.push_back(std::move(member));
        }
        sentinel_ = context.node(names.back());
        for (std::size_t i = 0; i < members_.size(); ++i) {
            if (i != primary_) members_[i].server->become_replica();
            members_[i].server->on_change([this, i](const std::string& key, const std::optional<StoredKey>& state) {
                if (i == primary_) stream(key, state);
            });
            context.engine.on_restart(members_[i].node, [this, i] { rejoin(i); });
        }
        Host(context.engine, sentinel_).spawn(watch_primary());
    }

    using StoreDeployment::client_for;
    std::unique_ptr<LockStoreClient> client_for(const Host& server, const LockSpec& lock) override {
        return std::make_unique<ReplicatedRedisClient>(server, *this, lock);
    }

    RedisConnection connection_to_primary(const Host& client) {
        Member& primary = members_[primary_];
        return RedisConnection(context_.network, client, primary.node, *primary.server, spec_.request_timeout);
    }

    // WAIT n timeout, sent to the primary after a write: how many replicas acknowledged.
    Task<std::optional<int>> wait_for_replicas(const Host& client) {
        Member& primary = members_[primary_];
        auto request = call(
            context_.network, client, primary.node,
            fmt::format("WAIT {} {}", spec_.replication.wait_replicas, spec_.replication.wait_timeout.ns / 1'000'000),
            [this] { return count_acknowledgements(); }, spec_.request_timeout + spec_.replication.wait_timeout);
        co_return co_await request;
    }

private:
    const LockSpec& world_lock() const override { return spec_; }
    struct Member {
        NodeId node;
        std::unique_ptr<RedisServer> server;
        std::uint64_t applied = 0;  // offset of the stream this member has applied
        std::uint64_t acked = 0;    // what the primary has heard it acknowledge
    };

    Host primary_host() const { return Host(context_.engine, members_[primary_].node); }

    void stream(const std::string& key, const std::optional<StoredKey>& state) {
        const std::uint64_t offset = ++offset_;
        members_[primary_].applied = offset;
        const NodeId from = members_[primary_].node;
        const std::string label =
            state ? fmt::format("replicate SET {} {}", key, state->value) : fmt::format("replicate DEL {}", key);
        for (std::size_t r = 0; r < members_.size(); ++r) {
            if (r == primary_) continue;
            // The lag passes on the primary: if it crashes first, the write never leaves.
            context_.engine.schedule_after(from, spec_.replication.lag, [this, from, r, key, state, offset, label] {
                context_.network.send(from, members_[r].node, label, [this, from, r, key, state, offset] {
                    Member& replica = members_[r];
                    if (!replica.server->is_replica()) return;  // promoted meanwhile: it is no longer a follower
                    replica.server->apply_replicated(key, state);
                    replica.applied = offset;
                    context_.network.send(replica.node, from, fmt::format("REPLCONF ACK {}", offset),
                                          [this, r, offset] {
                                              members_[r].acked = std::max(members_[r].acked, offset);
                                              acks_changed_.notify_all(context_.engine);
                                          });
                });
            });
        }
    }

    Task<Answer<int>> count_acknowledgements() {
        const std::uint64_t wanted = offset_;
        const Host host = primary_host();
        const Instant deadline = host.monotonic_now() + spec_.replication.wait_timeout;
        auto acknowledged = [this, wanted] {
            int count = 0;
            for (std::size_t r = 0; r < members_.size(); ++r)
                if (r != primary_ && members_[r].acked >= wanted) ++count;
            return count;
        };
        while (acknowledged() < spec_.replication.wait_replicas) {
            const Duration left = deadline - host.monotonic_now();
            if (left.ns <= 0) break;
            co_await acks_changed_.wait(host, left);
        }
        const int count = acknowledged();
        co_return Answer<int>{count, fmt::format("{}", count)};
    }

    Task<void> watch_primary() {
        const Host sentinel(context_.engine, sentinel_);
        Instant last_reply = sentinel.monotonic_now();
        for (;;) {
            co_await sentinel.sleep(seconds(1));
            const Member& primary = members_[primary_];
            auto ping = call(
                context_.network, sentinel, primary.node, "PING",
                [] {
                    return Answer<bool>{true, "PONG"};
                },
                seconds(1));
            if (co_await ping) {
                last_reply = sentinel.monotonic_now();
                continue;
            }
            if (sentinel.monotonic_now() - last_reply < spec_.replication.down_after) continue;
            co_await fail_over(sentinel);
            last_reply = sentinel.monotonic_now();
        }
    }

    // INFO replication on every replica; the largest offset wins, the lowest name on a tie
    // (Sentinel's rule), unless the design names the replica to promote: a sentinel's
    // misjudgement, or an operator's manual failover, takes it whatever it holds.
    Task<void> fail_over(const Host& sentinel) {
        std::vector<Task<std::optional<std::int64_t>>> offsets;
        for (std::size_t r = 0; r < members_.size(); ++r) offsets.push_back(ask_offset(sentinel, r));
        const auto answers = co_await gather(sentinel, std::move(offsets));
        std::optional<std::size_t> chosen;
        const auto named = static_cast<std::size_t>(spec_.replication.promote);  // members_[k] is redis-replica-k
        for (std::size_t r = 0; r < members_.size(); ++r) {
            if (r == primary_ || !answers[r]) continue;
            if (named != 0 && r != named) continue;
            if (!chosen || *answers[r] > *answers[*chosen]) chosen = r;
        }
        if (!chosen) co_return;  // no replica answered: nothing to promote
        const std::size_t old_primary = primary_;
        primary_ = *chosen;
        members_[primary_].server->promote();
        sentinel.record(
            trace_kind::store_failover,
            {{"from", members_[old_primary].node}, {"to", members_[primary_].node}, {"offset", *answers[primary_]}});
        // Every other member follows the new primary: a replica resynchronises, and an old
        // primary that was only paused learns it when it runs again (a crashed one on restart).
        for (std::size_t r = 0; r < members_.size(); ++r) {
            if (r == primary_) continue;
            context_.network.send(sentinel_, members_[r].node,
                                  fmt::format("REPLICAOF {}", context_.engine.node_name(members_[primary_].node)),
                                  [this, r] { rejoin(r); });
        }
    }

    Task<std::optional<std::int64_t>> ask_offset(const Host& sentinel, std::size_t r) {
        if (r == primary_) co_return std::nullopt;
        auto request = call(
            context_.network, sentinel, members_[r].node, "INFO replication",
            [this, r] {
                const auto offset = static_cast<std::int64_t>(members_[r].applied);
                return Answer<std::int64_t>{offset, fmt::format("offset {}", offset)};
            },
            seconds(1));
        co_return co_await request;
    }

    // A member that comes back after a crash follows whoever is primary now.
    void rejoin(std::size_t r) {
        if (r == primary_) return;  // restarted before anyone noticed: it stays primary with what it loaded
        RedisServer& server = *members_[r].server;
        server.become_replica();
        for (const auto& [key, value] : snapshot_of_primary()) server.apply_replicated(key, value);
        members_[r].applied = members_[r].acked = offset_;
    }

    std::vector<std::pair<std::string, std::optional<StoredKey>>> snapshot_of_primary() {
        std::vector<std::pair<std::string, std::optional<StoredKey>>> keys;
        RedisServer& primary = *members_[primary_].server;
        for (const auto& key : primary.keys()) keys.emplace_back(key, primary.stored(key));
        return keys;
    }

    StoreContext context_;
    LockSpec spec_;
    std::vector<Member> members_;
    NodeId sentinel_;
    std::size_t primary_ = 0;
    std::uint64_t offset_ = 0;
    Condition acks_changed_;
};

RedisConnection ReplicatedRedisClient::primary() const {
    return store_.connection_to_primary(host_);
}

Task<std::optional<Lease>> ReplicatedRedisClient::try_acquire() {
    const std::string value = values_.hex(8);
    const Instant sent = host_.monotonic_now();
    const auto granted = co_await primary().grant(spec_.key, value, spec_.ttl, spec_.token_counter);
    if (!granted) co_return std::nullopt;
    if (spec_.replication.wait_replicas > 0) {
        const auto acknowledged = co_await store_.wait_for_replicas(host_);
        if (!acknowledged || *acknowledged < spec_.replication.wait_replicas) {
            // Not durable enough to rely on: give it back and try again later.
            co_await primary().release(spec_.key, value, false);
            co_return std::nullopt;
        }
    }
    co_return Lease{spec_.key, value, granted->token, sent + spec_.ttl};
}

Task<ExtendResult> ReplicatedRedisClient::extend(const Lease& lease) {
    const Instant sent = host_.monotonic_now();
    const auto extended = co_await primary().extend_if_equals(lease.key, lease.value, spec_.ttl);
    if (!extended) co_return ExtendResult{ExtendResult::Outcome::no_reply, {}};
    if (*extended == 0) co_return ExtendResult{ExtendResult::Outcome::refused, {}};
    co_return ExtendResult{ExtendResult::Outcome::extended, sent + spec_.ttl};
}

Task<void> ReplicatedRedisClient::release(const Lease& lease) {
    co_await primary().release(lease.key, lease.value, spec_.release == ReleaseMode::plain_delete);
}

}  // namespace

std::unique_ptr<StoreDeployment> deploy_replicated_redis(const StoreContext& context) {
    return std::make_unique<ReplicatedRedis>(context);
}

}  // namespace locksim
