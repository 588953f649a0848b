#pragma once
// The parts of a world's schema, one reader each; scenario_loader.cpp puts them together.
#include <string>
#include <vector>

#include "models/world/world_spec.hpp"
#include "scenarios/schema/json_reader.hpp"

namespace locksim {

// "lock": the store, its key and TTL, the client's habits, and the store's own options.
LockSpec read_lock(const JsonReader& lock);

// The store's nodes, named after its kind: "lock-store"; "redis-primary",
// "redis-replica-1", …, "sentinel"; "redis-1" … "redis-5"; "zk-1" …; "etcd-1" ….
std::vector<std::string> store_node_names(const LockSpec& lock);

// "1ms", {"uniform": ["1ms", "3ms"]} or {"exponential": {"min": "1ms", "mean": "2ms"}}.
DelayModel read_delay(const JsonReader& delay);

// "network": the default delay and the links that differ from it.
void read_network(const JsonReader& network, const std::vector<std::string>& nodes, WorldSpec& world);

std::vector<Fault> read_faults(const JsonReader& list, const std::vector<std::string>& nodes);

// A node name that must exist; the error lists the nodes there are.
std::string read_node_ref(const JsonReader& field, const std::vector<std::string>& nodes);

}  // namespace locksim
