#include "models/stores/store_deployment.hpp"

#include "models/stores/store_registry.hpp"

namespace locksim {

std::unique_ptr<StoreDeployment> deploy_store(const StoreContext& context) {
    const DeployStore deploy = store_entry(context.world.lock.store).deploy;
    return deploy == nullptr ? nullptr : deploy(context);
}

}  // namespace locksim
