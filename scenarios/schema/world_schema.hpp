#pragma once
// The parts of a world's schema, one reader each; scenario_loader.cpp puts them together.
#include <string>
#include <vector>

#include "checks/expectations.hpp"
#include "models/world/world_spec.hpp"
#include "scenarios/schema/json_reader.hpp"

namespace locksim {

// "lock": the store, its key and TTL, the client's habits, and the store's own options.
LockSpec read_lock(const JsonReader& lock);

// "job": the renewals job (customers, period, work per customer) or the index rebuild
// (period, work); when it starts; how servers share it and what they hold the lock for.
JobSpec read_job(const JsonReader& job, const std::vector<std::string>& servers);

// A random duration: "1ms", {"uniform": ["1ms", "3ms"]},
// {"exponential": {"min": "1ms", "mean": "2ms"}} (or {"exponential": "2ms"}),
// {"pareto": {"min": "1s", "alpha": 1.5, "max": "5m"}},
// {"lognormal": {"median": "2s", "sigma": 1, "max": "5m"}},
// {"quantiles": {"p50": "20ms", "p99.9": "4s", "max": "30s"}},
// {"histogram": [{"up_to": "10ms", "count": 950}, …]} or {"observed": "gc-pauses.txt"} (a
// file relative to the scenario file's). `signed_values` allows negative fixed and uniform
// values (a clock stepping back).
DurationDistribution read_distribution(const JsonReader& field, bool signed_values = false);

// "network": the default delay and the links that differ from it.
void read_network(const JsonReader& network, const std::vector<std::string>& nodes, WorldSpec& world);

// "faults": a target may be a node or a role (holder, trigger, primary, servers); the
// world gives the nodes and whether its store has a primary.
std::vector<Fault> read_faults(const JsonReader& list, const WorldSpec& world);

// "fault_generators": any fault but a placed one's "when", drawn at random times. A target
// list may hold "servers" (the job servers), "store" (the lock store's nodes) and roles.
std::vector<FaultGenerator> read_fault_generators(const JsonReader& list, const WorldSpec& world);

// "1/100": integer odds of something happening to a message.
Odds read_odds(const JsonReader& field);

// "expect": metric names with a count, or {"at_least": n} and/or {"at_most": n}. A run's
// expectations (`run_servers`: the design's servers) may also name who and when, as the
// metric's MetricDetail allows ({"customers": [42]}, {"between": [a, b]}), and
// {"first_violation_at": {"at_most": "50s"}}; a sweep's and an exploration's, counts only.
std::vector<Expectation> read_expectations(const JsonReader& expect, const std::vector<std::string>& metrics,
                                           const std::vector<std::string>* run_servers = nullptr);

// A node name that must exist; the error lists the nodes there are.
std::string read_node_ref(const JsonReader& field, const std::vector<std::string>& nodes);

}  // namespace locksim
