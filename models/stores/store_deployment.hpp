#pragma once
// Puts a lock store into a world: its server objects on its nodes (WorldSpec::store_nodes,
// already created and linked to every other node), and a client for each job server.
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "models/lock_client.hpp"
#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/network.hpp"

namespace locksim {

class StoreDeployment {
public:
    virtual ~StoreDeployment() = default;
    // The client library a job server on `server` uses to reach this store, with the
    // world's lock settings…
    std::unique_ptr<LockStoreClient> client_for(const Host& server) { return client_for(server, world_lock()); }
    // …or with its own (a store-level test gives each client its lease length).
    virtual std::unique_ptr<LockStoreClient> client_for(const Host& server, const LockSpec& lock) = 0;
    // Told when a transaction at the billing database ends, committed or rolled back, with
    // the session it ran on: only a database lock's store has any.
    using TransactionEnd = std::function<void(std::int64_t session, bool committed)>;
    virtual void watch_transactions(TransactionEnd) {}

protected:
    virtual const LockSpec& world_lock() const = 0;
};

struct StoreContext {
    Engine& engine;
    Network& network;
    const WorldSpec& world;
    std::function<NodeId(const std::string&)> node;  // a node of the world by name
};

// The world's lock store, by its registry entry's factory; null for a design without a lock.
std::unique_ptr<StoreDeployment> deploy_store(const StoreContext& context);

// A store on one node (one Redis, a lease row, a Kubernetes API server, one Consul server): its
// server object there (a store without nodes of its own, a lease row in the billing
// database, lives on that database's node), and a client
// of type Client(host, network, node, server, lock spec) for each job server.
template <class Server, class Client>
class SingleNodeDeployment final : public StoreDeployment {
public:
    template <class... ServerArguments>
    explicit SingleNodeDeployment(const StoreContext& context, ServerArguments&&... arguments)
        : context_(context),
          node_(context.world.store_nodes.empty() ? context.node(context.world.billing_node)
                                                  : context.node(context.world.store_nodes.front())),
          server_(Host(context.engine, node_), std::forward<ServerArguments>(arguments)...) {}

    using StoreDeployment::client_for;
    std::unique_ptr<LockStoreClient> client_for(const Host& server, const LockSpec& lock) override {
        return std::make_unique<Client>(server, context_.network, node_, server_, lock);
    }

private:
    const LockSpec& world_lock() const override { return context_.world.lock; }
    StoreContext context_;
    NodeId node_;
    Server server_;
};

// The factories, each beside its store's own code; a store's registry entry names its own.
std::unique_ptr<StoreDeployment> deploy_redis(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_lease_row(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_kubernetes_lease(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_replicated_redis(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_redlock(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_zookeeper(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_etcd(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_consul(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_advisory_lock(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_row_lock(const StoreContext& context);
std::unique_ptr<StoreDeployment> deploy_in_memory(const StoreContext& context);

}  // namespace locksim
