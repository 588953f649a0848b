// models/faults/: the list of fault families, and each family's own reading, writing
// back, drawing and words, as the loader, shrink and explore meet them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "models/faults/fault.hpp"
#include "scenarios/schema/fault_json.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;

namespace {

// A world of server-1, server-2, lock-store, payment-provider and billing-db with these faults.
Scenario world_with_faults(const std::string& faults, const std::string& generators = "[]") {
    return parse_scenario(R"({
  "name": "families", "description": "every family", "seed": 7, "horizon": "1h",
  "servers": ["server-1", "server-2"], "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s" },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42], "period": "2026-10", "work_per_customer": "4s" },
  "faults": )" + faults + R"(, "fault_generators": )" +
                              generators + R"(, "designs": { "d": {} } })",
                          "families.json", metric_names());
}

// One fault of every key, written as fault_json writes them back.
const std::vector<std::string> one_of_each{
    R"({"pause":"server-1","at":"6s","for":"40s","kind":"sigstop"})",
    R"({"pause":{"role":"holder"},"at":"6s","for":"1ms","kind":"gc"})",
    R"({"clock_step":"server-2","at":"10s","by":"-5s"})",
    R"({"clock_slew":"server-2","at":"10s","by":"100ms"})",
    R"({"crash":"lock-store","at":"3s","restart_after":"5s","kind":"machine"})",
    R"({"crash":"server-1","at":"3s"})",
    R"({"partition":[["server-1"],["lock-store","billing-db"]],"at":"5s","heal_after":"30s","one_way":true})",
    R"({"partition":[["server-1"],["lock-store"]],"at":"5s"})",
    R"({"delay_spike":["server-1","lock-store"],"at":"5s","for":"2s","extra":"40s","one_way":true})",
    R"({"loss_burst":["server-2","lock-store"],"at":"5s","for":"10s","loss":"1/3"})",
    R"({"hold_message":["server-1","lock-store"],"at":"5s","for":"40s"})",
    // A link fault's role: side a of a partition, the first end of a link.
    R"({"partition":{"role":"holder"},"at":"5s","heal_after":"40s"})",
    R"({"partition":[[{"role":"holder"}],["lock-store"]],"at":"5s","one_way":true})",
    R"({"delay_spike":[{"role":"holder"},"lock-store"],"at":"5s","for":"2s","extra":"40s"})",
    R"({"loss_burst":[{"role":"primary"},"billing-db"],"at":"5s","for":"10s","loss":"1/1"})",
    R"({"hold_message":[{"role":"holder"},"lock-store"],"at":"5s","for":"40s"})",
};

}  // namespace

TEST_CASE("every fault a file writes reads back and is written back the same, family by family") {
    for (const auto& text : one_of_each) {
        INFO(text);
        const Scenario scenario = world_with_faults("[" + text + "]");
        const auto& faults = scenario.designs.front().world.faults;
        REQUIRE(faults.size() == 1);
        CHECK(fault_json(faults.front()).dump() == text);
    }
}

TEST_CASE("the examples above cover every key of the list of families") {
    for (std::string_view key : fault_keys()) {
        INFO(key);
        const bool covered = std::any_of(one_of_each.begin(), one_of_each.end(), [&](const std::string& text) {
            return text.starts_with("{\"" + std::string(key) + "\"");
        });
        CHECK(covered);
    }
}

TEST_CASE("a file that names no family is told every key of the list") {
    try {
        world_with_faults(R"([{"freeze": "server-1", "at": "1s"}])");
        FAIL("the loader took a fault of no family");
    } catch (const ScenarioError& error) {
        const std::string message = error.what();
        for (std::string_view key : fault_keys())
            CHECK(message.find("\"" + std::string(key) + "\"") != std::string::npos);
    }
}

TEST_CASE("a generator reads the same members as a placed fault, its amounts as distributions") {
    const Scenario scenario =
        world_with_faults("[]", R"([{ "delay_spike": ["server-1", "lock-store"], "mean_interval": "1m", "for": "2s",
                    "extra": { "uniform": ["1s", "3s"] } },
                  { "pause": ["server-1", {"role": "holder"}], "mean_interval": "1m", "for": "40s", "kind": "swap" }])");
    const auto& generators = scenario.designs.front().world.fault_generators;
    REQUIRE(generators.size() == 2);
    CHECK(generators[0].targets.empty());  // a fault on a link: its links are its streams
    CHECK(generators[0].links == std::vector<std::pair<std::string, std::string>>{{"server-1", "lock-store"}});
    CHECK(generators[0].amounts.has("for"));
    CHECK(generators[0].amounts.has("extra"));
    CHECK(std::get<DelaySpikeFault>(generators[0].shape).from.empty());  // each draw names its link
    CHECK(generators[1].targets == std::vector<std::string>{"server-1", std::string(holder_role)});
    CHECK(std::get<PauseFault>(generators[1].shape).cause == "swap");
    CHECK_FALSE(generators[1].amounts.has("extra"));
}

TEST_CASE("the trace kinds that show a fault are the families' own, and no other") {
    for (std::string_view kind : {"node.paused", "clock.stepped", "clock.slewing", "node.crashed",
                                  "network.partitioned", "link.held", "link.lossy", "link.holding"})
        CHECK(shows_a_fault(kind));
    for (std::string_view kind : {"node.resumed", "lock.granted", "fault.struck", "network.healed"})
        CHECK_FALSE(shows_a_fault(kind));
}

TEST_CASE("explore tries the families that say how, and builds their faults") {
    std::vector<std::string_view> keys;
    for (const ExploreShape* shape : explorable_families()) keys.push_back(shape->key);
    CHECK(keys == std::vector<std::string_view>{"pause", "clock_step", "clock_slew", "crash", "partition", "loss_burst",
                                                "hold_message"});
    const Fault pause = explored_fault("pause", "server-1", EventTrigger{"job.preparing", "server-1", {}, 2},
                                       seconds(29), ExploreDetails{"gc", {}});
    CHECK(std::get<PauseFault>(pause).length == seconds(29));
    CHECK(std::get<PauseFault>(pause).when->nth == 2);
    const Fault crash = explored_fault("crash", "server-1", EventTrigger{"job.preparing", "server-1", {}, 1},
                                       std::nullopt, ExploreDetails{});
    CHECK_FALSE(std::get<CrashFault>(crash).restart_after.has_value());
    // One family, two shapes: the key says which fault is built.
    const Fault step = explored_fault("clock_step", "lock-store", EventTrigger{}, milliseconds(-40), ExploreDetails{});
    const Fault slew = explored_fault("clock_slew", "lock-store", EventTrigger{}, milliseconds(-40), ExploreDetails{});
    CHECK_FALSE(std::get<ClockStepFault>(step).slew);
    CHECK(std::get<ClockStepFault>(slew).slew);
    CHECK(std::get<ClockStepFault>(slew).delta == milliseconds(-40));
    const Fault burst = explored_fault("loss_burst", "server-1", EventTrigger{"job.preparing", "server-1", {}, 1},
                                       seconds(5), ExploreDetails{"", {"lock-store"}, true, Odds{1, 2}});
    const auto& lost = std::get<LossBurstFault>(burst);
    CHECK((lost.from == "server-1" && lost.to == "lock-store" && lost.length == seconds(5) && lost.one_way));
    CHECK((lost.loss.numerator == 1 && lost.loss.denominator == 2));
    const Fault held = explored_fault("hold_message", "server-1", EventTrigger{"job.preparing", "server-1", {}, 1},
                                      seconds(40), ExploreDetails{"", {"lock-store"}});
    const auto& hold = std::get<MessageHoldFault>(held);
    CHECK((hold.from == "server-1" && hold.to == "lock-store" && hold.length == seconds(40) && hold.when->nth == 1));
    const Fault cut = explored_fault("partition", "server-1", EventTrigger{"job.preparing", "server-1", {}, 1},
                                     seconds(5), ExploreDetails{"", {"lock-store"}, true});
    const auto& partition = std::get<PartitionFault>(cut);
    CHECK((partition.side_a == std::vector<std::string>{"server-1"} &&
           partition.side_b == std::vector<std::string>{"lock-store"} && partition.one_way));
}

TEST_CASE("a fault in words names who it strikes, a role by who plays it") {
    CHECK(fault_words(PauseFault{"server-1", {}, seconds(40), "gc", std::nullopt}) == "server-1 pauses 40s");
    CHECK(fault_words(PauseFault{std::string(holder_role), {}, seconds(40), "gc", std::nullopt}) ==
          "the lock holder pauses 40s");
    CHECK(fault_words(CrashFault{"redis", {}, std::nullopt, std::nullopt, CrashKind::machine}) ==
          "redis loses power for good");
    CHECK(fault_words(PartitionFault{{"server-1"}, {"lock-store"}, {}, seconds(30), false, std::nullopt}) ==
          "a partition cuts server-1 from lock-store for 30s");
    CHECK(
        fault_words(PartitionFault{{std::string(holder_role)}, {"lock-store"}, {}, seconds(30), false, std::nullopt}) ==
        "a partition cuts the lock holder from lock-store for 30s");
    CHECK(fault_words(PartitionFault{{std::string(holder_role)}, {}, {}, std::nullopt, true, std::nullopt}) ==
          "a partition cuts the lock holder off from every other node for good");
    CHECK(fault_words(MessageHoldFault{std::string(holder_role), "lock-store", {}, seconds(40), std::nullopt}) ==
          "the next message the lock holder sends lock-store lands no sooner than 40s later");
    CHECK(fault_words(LossBurstFault{
              std::string(primary_role), "billing-db", {}, seconds(5), Odds{1, 2}, false, std::nullopt}) ==
          "messages between the store's primary and billing-db sent within 5s are lost at odds 1/2");
}
