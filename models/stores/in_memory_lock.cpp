// A lock in each server's own memory: on one server it would keep two threads
// apart; here each server has its own, so all three take "the" lock at once.
#include "models/stores/store_deployment.hpp"
#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

class InMemoryLock final : public LockStoreClient {
public:
    InMemoryLock(Host host, std::string key) : host_(host), key_(std::move(key)) {}

    Task<Lease> acquire() override {
        // One job per server, so the local mutex is always free: nothing to wait for.
        host_.record(trace_kind::lock_granted, {{"key", key_}, {"value", "in memory"}, {"holder", host_.id()}});
        co_return Lease{key_, "in memory", std::nullopt, never};
    }
    Task<ExtendResult> extend(const Lease&) override { co_return ExtendResult{ExtendResult::Outcome::extended, never}; }
    Task<void> release(const Lease&) override {
        host_.record(
            trace_kind::lock_released,
            {{"key", key_}, {"value", "in memory"}, {"holder", host_.id()}, {"by", host_.id()}, {"plain", false}});
        co_return;
    }

private:
    Host host_;
    std::string key_;
};

class InMemoryDeployment final : public StoreDeployment {
public:
    explicit InMemoryDeployment(const StoreContext& context) : lock_(context.world.lock) {}
    using StoreDeployment::client_for;
    std::unique_ptr<LockStoreClient> client_for(const Host& server, const LockSpec& lock) override {
        return std::make_unique<InMemoryLock>(server, lock.key);
    }

private:
    const LockSpec& world_lock() const override { return lock_; }
    LockSpec lock_;
};

}  // namespace

std::unique_ptr<StoreDeployment> deploy_in_memory(const StoreContext& context) {
    return std::make_unique<InMemoryDeployment>(context);
}

}  // namespace locksim
