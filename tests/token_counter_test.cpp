// Fencing tokens as they are deployed: a Redis counter INCRed by the lock script, checked
// at the database, at the payment provider, or both; and what a failover does to it.
#include <catch2/catch.hpp>

#include <string>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// A small world with `lock` and top-level `extra` members, as scenario text.
std::string world_with(const std::string& lock, const std::string& extra) {
    return R"({"name": "t", "description": "d", "seed": 1, "horizon": "5m", "servers": ["server-1", "server-2"],
        "network": {"delay": "1ms"}, "lock": )" +
           lock + R"(, "job": {"name": "renewals", "at": "00:00", "customers": [41, 42], "period": "2026-10",
        "work_per_customer": "1s"}, "designs": {"only": {}})" +
           extra + "}";
}

const std::string redis_with_counter =
    R"({"store": "redis", "key": "lock:renewals", "ttl": "30s", "token_counter": "lock:renewals:token"})";

}  // namespace

TEST_CASE("fencing is true, false, database, provider or both") {
    const auto protection = [](const std::string& fencing) {
        const auto scenario =
            parse_scenario(world_with(redis_with_counter, R"(, "fencing": )" + fencing), "test.json", metric_names());
        return scenario.designs.at(0).world.protection;
    };
    CHECK(protection("true").fence_database);
    CHECK_FALSE(protection("true").fence_provider);
    CHECK_FALSE(protection("false").fence_database);
    CHECK(protection("\"database\"").fence_database);
    CHECK_FALSE(protection("\"database\"").fence_provider);
    CHECK_FALSE(protection("\"provider\"").fence_database);
    CHECK(protection("\"provider\"").fence_provider);
    CHECK(protection("\"both\"").fence_database);
    CHECK(protection("\"both\"").fence_provider);
}

TEST_CASE("a token counter is for Redis locks only, and fencing needs one there") {
    CHECK(says(error_of(world_with(R"({"store": "redis", "key": "lock:renewals", "ttl": "30s"})",
                                   R"(, "fencing": "provider")")),
               "/fencing: fencing needs a lock that hands out tokens"));
    CHECK(says(error_of(world_with(R"({"store": "redlock", "key": "k", "ttl": "30s", "token_counter": "c"})", "")),
               "/lock/token_counter: \"token_counter\" is an option of redis and redis-replicated"));
    CHECK(says(error_of(world_with(R"({"store": "redis", "key": "k", "ttl": "30s", "token_counter": "k"})", "")),
               "/lock/token_counter: expected a key other than the lock's own"));
    CHECK(says(error_of(world_with(redis_with_counter, R"(, "fencing": "gateway")")),
               "/fencing: unknown \"gateway\"; expected \"database\""));
    CHECK(error_of(world_with(redis_with_counter, R"(, "fencing": "both")")) == "no error");
}

TEST_CASE(
    "redis-counter-token-failover: the replica's counter repeats token 1, and only the provider's fence is "
    "fooled") {
    const auto scenario = load_scenario_file(scenario_path("redis-counter-token-failover.json"), metric_names());
    const auto outcome = run_scenario(scenario, scenario.seed);

    const auto& at_database = design_named(outcome, "fenced-at-database");
    CHECK(at_database.metrics.value(Metric::tokens_reused) == 1);
    CHECK(at_database.metrics.value(Metric::double_charges) == 0);
    CHECK_FALSE(at_database.metrics.overlaps.empty());

    const auto& at_provider = design_named(outcome, "fenced-at-provider");
    CHECK(at_provider.metrics.value(Metric::tokens_reused) == 1);
    CHECK(at_provider.metrics.value(Metric::double_charges) >= 1);
    CHECK(at_provider.metrics.value(Metric::stale_writes_accepted) == 0);  // the same token is not a stale one
    // Both holders were granted token 1: the promoted replica never saw the first INCR.
    const auto granted = events_of(at_provider.trace, trace_kind::lock_granted.name);
    REQUIRE(granted.size() == 2);
    CHECK(granted[0]->integer("token") == 1);
    CHECK(granted[1]->integer("token") == 1);
    CHECK(granted[0]->node_ref("holder") != granted[1]->node_ref("holder"));

    const auto& etcd = design_named(outcome, "etcd-fenced-at-provider");
    CHECK(etcd.metrics.value(Metric::tokens_reused) == 0);
    CHECK(etcd.metrics.value(Metric::token_grants) >= 1);
    CHECK(etcd.metrics.value(Metric::double_charges) == 0);
}

TEST_CASE("gc-pause-40s fenced at the provider: the late charge with token 33 is refused") {
    auto scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    for (auto& design : scenario.designs) {
        design.world.protection.fence_database = false;
        design.world.protection.fence_provider = design.name == "fenced";
    }
    const auto outcome = run_scenario(scenario, scenario.seed, std::string("fenced"));
    const auto& fenced = design_named(outcome, "fenced");
    CHECK(fenced.metrics.value(Metric::double_charges) == 0);
    CHECK(fenced.metrics.value(Metric::stale_writes_rejected) == 1);
    const auto refused = events_of(fenced.trace, trace_kind::provider_refused.name);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->integer("customer") == 42);
    CHECK(refused[0]->integer("token") + 1 == refused[0]->integer("highest"));
}
