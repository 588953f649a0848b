// Stores not built yet: the loader accepts their names, running one stops with this message.
#include <stdexcept>

#include "models/stores/store_deployment.hpp"

namespace locksim {

std::unique_ptr<StoreDeployment> deploy_zookeeper(const StoreContext&) {
    throw std::logic_error("the zookeeper store is not built yet");
}
std::unique_ptr<StoreDeployment> deploy_etcd(const StoreContext&) {
    throw std::logic_error("the etcd store is not built yet");
}

}  // namespace locksim
