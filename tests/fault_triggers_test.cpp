// Engine::on_event and the faults a scenario places by events ("when"): the action runs
// once, on the nth matching trace event, as a world event at that same instant.
#include <catch2/catch.hpp>

#include <set>

#include "tests/support.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

using Wanted = std::vector<std::pair<std::string, FieldValue>>;

// `node` records that it is preparing `customer`'s invoice at true time `when`.
void prepare_at(Engine& engine, Instant when, NodeId node, std::int64_t customer) {
    engine.schedule_at(when, node, [&engine, node, customer] {
        engine.record(node, trace_kind::job_preparing, {{"customer", customer}});
    });
}

// The two steps of one customer, as a job server takes them: prepare the invoice (4s of
// work), then ask the provider to charge. `sent_at` is when the charge left.
Task<void> prepare_then_charge(Host host, Network& network, NodeId provider, std::optional<Instant>& sent_at) {
    host.record(trace_kind::job_preparing, {{"customer", std::int64_t{42}}});
    auto work = host.sleep(4_s);
    co_await work;
    sent_at = host.engine().now();
    network.send(host.id(), provider, "charge customer 42", [] {});
}

struct PrepareThenCharge {
    Engine engine{1};
    Network network{engine};
    NodeId server = engine.add_node("server-1");
    NodeId provider = engine.add_node("payment-provider");
    std::optional<Instant> sent_at;

    PrepareThenCharge() {
        network.connect(server, provider, DelayModel::fixed(1_ms));
        engine.spawn(server, prepare_then_charge(Host(engine, server), network, provider, sent_at));
    }
    void pause_when_preparing(Duration length) {
        engine.on_event(std::string(trace_kind::job_preparing), server, {{"customer", std::int64_t{42}}}, 1,
                        [this, length] { engine.pause(server, length, "gc"); });
    }
};

const TraceEvent& only(const std::vector<const TraceEvent*>& events) {
    REQUIRE(events.size() == 1);
    return *events[0];
}

// A small world: two servers charge customers 41, 42 and 43 under a Redis lock; `faults`
// is the scenario's fault list.
std::string scenario_with(const std::string& faults) {
    return R"({
  "name": "trigger",
  "description": "a fault placed by an event",
  "seed": 7,
  "horizon": "10m",
  "servers": ["server-1", "server-2"],
  "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s" },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42, 43], "period": "2026-10", "work_per_customer": "4s" },
  "faults": )" +
           faults + R"(,
  "designs": { "only": {} }
})";
}

Trace run_only_design(const std::string& text) {
    const Scenario scenario = parse_scenario(text, "trigger.json", metric_names());
    ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    REQUIRE(outcome.designs.size() == 1);
    return std::move(outcome.designs[0].trace);
}

}  // namespace

// --- Engine::on_event -------------------------------------------------------------

TEST_CASE("a trigger fires on the nth matching event only, and only once") {
    Engine engine(1);
    const NodeId server_1 = engine.add_node("server-1");
    const NodeId server_2 = engine.add_node("server-2");
    std::vector<Instant> fired;
    engine.on_event(std::string(trace_kind::job_preparing), server_1, {{"customer", std::int64_t{42}}}, 2,
                    [&engine, &fired] { fired.push_back(engine.now()); });
    prepare_at(engine, at(1_s), server_1, 42);                   // the first match
    prepare_at(engine, at(2_s), server_1, 41);                   // another customer
    prepare_at(engine, at(3_s), server_2, 42);                   // another node
    engine.schedule_at(at(4_s), server_1, [&engine, server_1] {  // another kind
        engine.record(server_1, trace_kind::job_customer_skipped,
                      {{"customer", std::int64_t{42}}, {"reason", "already charged"}});
    });
    prepare_at(engine, at(5_s), server_1, 42);  // the second match: it fires
    prepare_at(engine, at(6_s), server_1, 42);  // the third: nothing more
    engine.run(at(1_min));
    CHECK(fired == std::vector<Instant>{at(5_s)});
}

TEST_CASE("a trigger without a node counts matches on every node") {
    Engine engine(1);
    const NodeId server_1 = engine.add_node("server-1");
    const NodeId server_2 = engine.add_node("server-2");
    std::vector<Instant> fired;
    engine.on_event(std::string(trace_kind::job_preparing), no_node, {{"customer", std::int64_t{42}}}, 2,
                    [&engine, &fired] { fired.push_back(engine.now()); });
    prepare_at(engine, at(1_s), server_1, 42);
    prepare_at(engine, at(2_s), server_2, 42);
    prepare_at(engine, at(3_s), server_1, 42);
    engine.run(at(1_min));
    CHECK(fired == std::vector<Instant>{at(2_s)});
}

TEST_CASE("a trigger matches a field only by equal type and value, and needs every field it names") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    int text_fired = 0;
    int token_fired = 0;
    int both_fired = 0;
    engine.on_event(std::string(trace_kind::db_write), server, {{"customer", "42"}}, 1,
                    [&text_fired] { ++text_fired; });
    engine.on_event(std::string(trace_kind::db_write), server, {{"token", std::int64_t{34}}}, 1,
                    [&token_fired] { ++token_fired; });
    engine.on_event(std::string(trace_kind::db_write), server,
                    {{"customer", std::int64_t{42}}, {"token", std::int64_t{34}}}, 1, [&both_fired] { ++both_fired; });
    // A write of customer `customer`, with a fencing token or without (token is optional).
    const auto write_at = [&engine, server](Instant when, std::int64_t customer, std::optional<std::int64_t> token) {
        engine.schedule_at(when, server, [&engine, server, customer, token] {
            FieldList fields{{"customer", customer},
                             {"period", "2026-10"},
                             {"status", "charged"},
                             {"rows", std::int64_t{1}},
                             {"client", server}};
            if (token) fields.push_back({"token", *token});
            engine.record(server, trace_kind::db_write, fields);
        });
    };
    write_at(at(1_s), 42, std::nullopt);  // has no token
    write_at(at(2_s), 41, 34);
    write_at(at(3_s), 42, 34);
    engine.run(at(1_min));
    CHECK(text_fired == 0);   // "42" is text; the customer field is a number
    CHECK(token_fired == 1);  // at 2s, the first event that has a token at all
    CHECK(both_fired == 1);   // at 3s only
}

TEST_CASE("a trigger's action runs at the same instant, after the code that recorded the match goes on") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<std::string> story;
    std::optional<Instant> action_at;
    engine.on_event(std::string(trace_kind::job_preparing), server, {}, 1, [&engine, &story, &action_at] {
        story.push_back("action");
        action_at = engine.now();
    });
    engine.schedule_at(at(1_s), server, [&engine, &story, server] {
        engine.record(server, trace_kind::job_preparing, {{"customer", std::int64_t{42}}});
        story.push_back("the recording code goes on");
    });
    engine.run(at(1_min));
    CHECK(story == std::vector<std::string>{"the recording code goes on", "action"});
    CHECK(action_at == at(1_s));
}

TEST_CASE("a trigger's action is a world event: it runs although the node that matched is paused") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::optional<Instant> action_at;
    engine.on_event(std::string(trace_kind::node_paused), server, {}, 1,
                    [&engine, &action_at] { action_at = engine.now(); });
    engine.schedule_at(at(1_s), no_node, [&engine, server] { engine.pause(server, 10_s, "gc"); });
    engine.run(at(1_min));
    CHECK(action_at == at(1_s));  // not at 11s, when the node resumes
}

TEST_CASE("a pause placed by an event lands between two steps of a process and delays what follows") {
    SECTION("without the pause the charge leaves after the 4s of work") {
        PrepareThenCharge world;
        world.engine.run(at(1_min));
        CHECK(world.sent_at == at(4_s));
    }
    SECTION("a 10s pause when preparing starts holds the charge back until the pause ends") {
        PrepareThenCharge world;
        world.pause_when_preparing(10_s);
        world.engine.run(at(1_min));
        CHECK(world.sent_at == at(10_s));
        // The trace tells it in order: preparing, then the pause at that same instant,
        // then the resume and the charge leaving.
        const auto& preparing = only(events_of(world.engine, trace_kind::job_preparing));
        const auto& paused = only(events_of(world.engine, trace_kind::node_paused));
        const auto& resumed = only(events_of(world.engine, trace_kind::node_resumed));
        const auto& charge = only(events_of(world.engine, trace_kind::message_sent));
        CHECK(paused.at == preparing.at);
        CHECK(paused.sequence > preparing.sequence);
        CHECK(paused.duration("for") == 10_s);
        CHECK(resumed.at == at(10_s));
        CHECK(charge.sequence > resumed.sequence);
    }
    SECTION("a pause shorter than the work is slept through and changes nothing the node does") {
        PrepareThenCharge world;
        world.pause_when_preparing(3_s);
        world.engine.run(at(1_min));
        CHECK(world.sent_at == at(4_s));
    }
}

// --- through a scenario's "when" --------------------------------------------------

TEST_CASE("a scenario's pause when server-1 prepares customer 42 strikes at that instant") {
    const Trace trace = run_only_design(scenario_with(R"([
      { "pause": "server-1", "for": "10s", "when": { "event": "job.preparing", "node": "server-1", "customer": 42 } }
    ])"));
    const NodeId server_1 = *trace.find_node("server-1");
    std::vector<const TraceEvent*> preparing_42;
    for (const auto* event : events_of(trace, trace_kind::job_preparing, server_1))
        if (event->integer("customer") == 42) preparing_42.push_back(event);
    const auto& preparing = only(preparing_42);
    const auto& paused = only(events_of(trace, trace_kind::node_paused));
    CHECK(paused.node == server_1);
    CHECK(paused.at == preparing.at);
    CHECK(paused.sequence > preparing.sequence);
    CHECK(paused.duration("for") == 10_s);
    CHECK(paused.text("cause") == "gc");
    // Customer 41 was prepared before, and did not trigger anything.
    CHECK(events_of(trace, trace_kind::job_preparing, server_1).front()->integer("customer") == 41);
}

TEST_CASE("a trigger field that names a node matches the event's node field") {
    // lock.granted records its holder as a node, not as text.
    const auto pause_when_granted_to = [](const std::string& holder) {
        return run_only_design(scenario_with(R"([
          { "pause": "lock-store", "for": "1s", "when": { "event": "lock.granted", "holder": ")" +
                                             holder + R"(" } }
        ])"));
    };
    for (const std::string holder : {"server-1", "server-2"}) {
        INFO("holder " << holder);
        const Trace trace = pause_when_granted_to(holder);
        const NodeId wanted = *trace.find_node(holder);
        const TraceEvent* granted = nullptr;
        for (const auto* event : events_of(trace, trace_kind::lock_granted))
            if (event->node_ref("holder") == wanted && granted == nullptr) granted = event;
        REQUIRE(granted != nullptr);
        const auto& paused = only(events_of(trace, trace_kind::node_paused));
        CHECK(paused.node == *trace.find_node("lock-store"));
        CHECK(paused.at == granted->at);
        CHECK(paused.sequence > granted->sequence);
    }
}

TEST_CASE("a trigger's nth counts the scenario's matching events") {
    const Trace trace = run_only_design(scenario_with(R"([
      { "clock_step": "server-1", "by": "-5s", "when": { "event": "job.preparing", "node": "server-1", "nth": 3 } }
    ])"));
    const NodeId server_1 = *trace.find_node("server-1");
    const auto preparing = events_of(trace, trace_kind::job_preparing, server_1);
    REQUIRE(preparing.size() >= 3);
    const auto& stepped = only(events_of(trace, trace_kind::clock_stepped));
    CHECK(stepped.node == server_1);
    CHECK(stepped.at == preparing[2]->at);
    CHECK(stepped.instant("new_wall") - stepped.instant("old_wall") == -5_s);
}

TEST_CASE("a fault can be placed right after a keep-alive of an etcd or ZooKeeper holder's session") {
    const std::string store = GENERATE(std::string("etcd"), std::string("zookeeper"));
    INFO(store);
    std::string text = scenario_with(R"([
      { "pause": "server-1", "for": "1s", "when": { "event": "lock.renewed", "holder": "server-1", "nth": 2 } }
    ])");
    const std::string redis_lock = R"("lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s" })";
    text.replace(text.find(redis_lock), redis_lock.size(),
                 R"("lock": { "store": ")" + store + R"(", "key": "/locks/renewals", "ttl": "10s" })");
    const Trace trace = run_only_design(text);
    const NodeId server_1 = *trace.find_node("server-1");
    std::vector<const TraceEvent*> renewed;
    for (const auto* event : events_of(trace, trace_kind::lock_renewed))
        if (event->node_ref("holder") == server_1) renewed.push_back(event);
    REQUIRE(renewed.size() >= 2);
    // The store records each keep-alive of the holder's session with its lock and token.
    CHECK(renewed[0]->text("key") == "/locks/renewals");
    const auto granted = events_of(trace, trace_kind::lock_granted);
    REQUIRE_FALSE(granted.empty());
    CHECK(granted[0]->node_ref("holder") == server_1);
    CHECK(renewed[0]->integer("token") == granted[0]->integer("token"));
    const auto& paused = only(events_of(trace, trace_kind::node_paused));
    CHECK(paused.node == server_1);
    CHECK(paused.at == renewed[1]->at);
}

TEST_CASE("the trace vocabulary names each kind once, and each field of a kind once") {
    std::set<std::string_view> kinds;
    for (const KindSpec* kind : all_trace_kinds()) {
        INFO(kind->name);
        CHECK(kinds.insert(kind->name).second);
        CHECK_FALSE(kind->meaning.empty());
        std::set<std::string_view> fields;
        for (const auto& field : kind->fields) {
            INFO(field.name);
            CHECK(fields.insert(field.name).second);
            CHECK_FALSE(field.meaning.empty());
        }
        CHECK(find_trace_kind(kind->name) == kind);
    }
    CHECK(find_trace_kind("no.such") == nullptr);
}
