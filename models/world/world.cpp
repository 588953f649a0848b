#include "models/world/world.hpp"

#include <memory>
#include <variant>
#include <vector>

#include "models/billing_database.hpp"
#include "models/job_server.hpp"
#include "models/stores/lease_row_store.hpp"
#include "models/lock_holder.hpp"
#include "models/payment_provider.hpp"
#include "models/stores/redis_server.hpp"
#include "models/stores/lease_row_client.hpp"
#include "models/stores/redis_client.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

namespace locksim {
namespace {

// Member order is destruction order in reverse: the engine goes last, after the models
// its suspended processes point into have no more events to run.
class World {
public:
    World(const WorldSpec& spec, std::uint64_t seed) : spec_(spec), engine_(seed), network_(engine_) {
        add_nodes();
        wire_network();
        build_store();
        build_servers();
        schedule_faults();
    }

    RunResult run() {
        RunSummary summary = engine_.run(Instant{} + spec_.horizon);
        return RunResult{engine_.trace(), summary};
    }

private:
    ClockSettings clock_of(const std::string& node) const {
        auto found = spec_.clocks.find(node);
        return found == spec_.clocks.end() ? ClockSettings{} : found->second;
    }

    NodeId node(const std::string& name) const { return *engine_.trace().find_node(name); }

    void add_nodes() {
        for (const auto& server : spec_.servers) engine_.add_node(server, clock_of(server));
        for (const auto* service : {&spec_.lock_store_node, &spec_.provider_node, &spec_.billing_node})
            engine_.add_node(*service, clock_of(*service));
    }

    void wire_network() {
        for (const auto& server : spec_.servers)
            for (const auto* service : {&spec_.lock_store_node, &spec_.provider_node, &spec_.billing_node})
                network_.connect(node(server), node(*service), spec_.link_delay);
    }

    void build_store() {
        const Host store_host(engine_, node(spec_.lock_store_node));
        switch (spec_.lock.store) {
            case StoreKind::redis: redis_ = std::make_unique<RedisServer>(store_host); break;
            case StoreKind::lease_row:
                lease_rows_ = std::make_unique<LeaseRowStore>(store_host, spec_.lock.first_token);
                break;
        }
        billing_ = std::make_unique<BillingDatabase>(Host(engine_, node(spec_.billing_node)), spec_.job.customers,
                                                     spec_.job.period);
        provider_ = std::make_unique<PaymentProvider>(Host(engine_, node(spec_.provider_node)));
    }

    std::unique_ptr<LockStoreClient> store_client(const Host& host) {
        const NodeId store_node = node(spec_.lock_store_node);
        switch (spec_.lock.store) {
            case StoreKind::redis:
                return std::make_unique<RedisLockClient>(host, network_, store_node, *redis_, spec_.lock);
            case StoreKind::lease_row:
                return std::make_unique<LeaseRowLockClient>(host, network_, store_node, *lease_rows_, spec_.lock);
        }
        return nullptr;
    }

    void build_servers() {
        const JobResources resources{node(spec_.billing_node), billing_.get(), node(spec_.provider_node),
                                     provider_.get()};
        for (const auto& name : spec_.servers) {
            const Host host(engine_, node(name));
            auto& client = clients_.emplace_back(store_client(host));
            auto& holder = holders_.emplace_back(std::make_unique<LockHolder>(host, *client, spec_.lock));
            auto& server = servers_.emplace_back(
                std::make_unique<JobServer>(host, network_, *holder, resources, spec_.job, spec_.protection));
            host.spawn(server->run_nightly_job());
        }
    }

    void schedule_faults() {
        for (const auto& fault : spec_.faults) {
            std::visit(
                [this](const auto& f) {
                    using F = std::decay_t<decltype(f)>;
                    const NodeId target = node(f.node);
                    if constexpr (std::is_same_v<F, PauseFault>) {
                        engine_.schedule_at(f.at, no_node,
                                            [this, target, f] { engine_.pause(target, f.length, f.cause); });
                    } else {
                        engine_.schedule_at(f.at, no_node,
                                            [this, target, f] { engine_.step_wall_clock(target, f.delta); });
                    }
                },
                fault);
        }
    }

    const WorldSpec& spec_;
    Engine engine_;
    Network network_;
    std::unique_ptr<RedisServer> redis_;
    std::unique_ptr<LeaseRowStore> lease_rows_;
    std::unique_ptr<BillingDatabase> billing_;
    std::unique_ptr<PaymentProvider> provider_;
    std::vector<std::unique_ptr<LockStoreClient>> clients_;
    std::vector<std::unique_ptr<LockHolder>> holders_;
    std::vector<std::unique_ptr<JobServer>> servers_;
};

}  // namespace

RunResult run_world(const WorldSpec& spec, std::uint64_t seed) {
    World world(spec, seed);
    return world.run();
}

}  // namespace locksim
