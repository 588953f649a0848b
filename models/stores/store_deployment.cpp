#include "models/stores/store_deployment.hpp"

namespace locksim {

std::unique_ptr<StoreDeployment> deploy_store(const StoreContext& context) {
    switch (context.world.lock.store) {
        case StoreKind::redis: return deploy_redis(context);
        case StoreKind::lease_row: return deploy_lease_row(context);
        case StoreKind::kubernetes_lease: return deploy_kubernetes_lease(context);
        case StoreKind::redis_replicated: return deploy_replicated_redis(context);
        case StoreKind::redlock: return deploy_redlock(context);
        case StoreKind::zookeeper: return deploy_zookeeper(context);
        case StoreKind::etcd: return deploy_etcd(context);
        case StoreKind::consul: return deploy_consul(context);
        case StoreKind::in_memory: return deploy_in_memory(context);
        case StoreKind::db_advisory:
        case StoreKind::db_for_update: return deploy_database_lock(context);
        case StoreKind::none: break;  // the world deploys nothing
    }
    return nullptr;
}

}  // namespace locksim
