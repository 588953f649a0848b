// sim/network.hpp and sim/rpc.hpp: links, delays, ordering, and calls awaited like functions.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sim/duration_text.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/rpc.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// What a calling process saw: the reply, when the call returned, and when a sleep after
// it ended (a stray resumption would cut that sleep short).
struct CallOutcome {
    std::optional<int> reply;
    Instant returned_at{-1};
    Instant slept_until{-1};
};

// Calls `server`, whose handler notes the true time it ran and answers `answer`.
Task<void> caller(Host host, Network& network, NodeId server, int answer, std::optional<Duration> timeout,
                  CallOutcome& outcome, std::vector<Instant>& handled_at) {
    Engine* engine = &host.engine();
    std::vector<Instant>* handled = &handled_at;
    auto request = call(
        network, host, server, "GET balance",
        [engine, handled, answer] {
            handled->push_back(engine->now());
            return Answer<int>{answer, std::to_string(answer)};
        },
        timeout);
    outcome.reply = co_await request;
    outcome.returned_at = host.engine().now();
    co_await host.sleep(10_s);
    outcome.slept_until = host.engine().now();
}

}  // namespace

// --- links ------------------------------------------------------------------------

TEST_CASE("a link connects two nodes in both directions") {
    Engine engine(1);
    Network network(engine);
    const NodeId a = engine.add_node("server-1");
    const NodeId b = engine.add_node("redis");
    const NodeId c = engine.add_node("server-2");
    network.connect(a, b, DelayModel::fixed(1_ms));
    CHECK(network.connected(a, b));
    CHECK(network.connected(b, a));
    CHECK_FALSE(network.connected(a, c));
    CHECK_FALSE(network.connected(c, b));
}

TEST_CASE("a fixed link delay delivers after exactly that delay") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(35_ms));
    std::vector<Instant> delivered;
    engine.schedule_at(at(1_s), client,
                       [&] { network.send(client, store, "PING", [&] { delivered.push_back(engine.now()); }); });
    engine.schedule_at(at(2_s), store,
                       [&] { network.send(store, client, "PONG", [&] { delivered.push_back(engine.now()); }); });
    engine.run(at(1_min));
    CHECK(delivered == std::vector<Instant>{at(1_s + 35_ms), at(2_s + 35_ms)});
}

TEST_CASE("a uniform link delay stays within its bounds") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::uniform(10_ms, 20_ms));
    std::vector<Duration> delays;
    // One message a second, far apart, so ordering never holds one back.
    for (int i = 0; i < 200; ++i) {
        const Instant sent = at(1_s * i);
        engine.schedule_at(sent, client, [&, sent] {
            network.send(client, store, "PING", [&, sent] { delays.push_back(engine.now() - sent); });
        });
    }
    engine.run(at(10_min));
    REQUIRE(delays.size() == 200);
    for (Duration delay : delays) {
        REQUIRE(delay >= 10_ms);
        REQUIRE(delay <= 20_ms);
    }
    std::set<std::int64_t> distinct;
    for (Duration delay : delays) distinct.insert(delay.ns);
    CHECK(distinct.size() > 100);
}

TEST_CASE("an exponential link delay is never below its minimum") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::exponential(1_ms, 5_ms));
    std::vector<Duration> delays;
    for (int i = 0; i < 2000; ++i) {
        const Instant sent = at(10_s * i);
        engine.schedule_at(sent, client, [&, sent] {
            network.send(client, store, "PING", [&, sent] { delays.push_back(engine.now() - sent); });
        });
    }
    engine.run(at(10_s * 2000));
    REQUIRE(delays.size() == 2000);
    double sum_ns = 0;
    for (Duration delay : delays) {
        REQUIRE(delay >= 1_ms);
        sum_ns += static_cast<double>(delay.ns);
    }
    CHECK(sum_ns / 2000 == Approx(6e6).epsilon(0.1));
}

TEST_CASE("messages in one direction are delivered in order even when a later one draws a shorter delay") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::uniform(1_ms, 100_ms));
    std::vector<int> order;
    engine.schedule_at(at(1_s), client, [&] {
        for (int i = 0; i < 50; ++i)
            network.send(client, store, fmt::format("message {}", i), [&order, i] { order.push_back(i); });
    });
    engine.run(at(1_min));

    std::vector<int> sent_order(50);
    for (int i = 0; i < 50; ++i) sent_order[static_cast<std::size_t>(i)] = i;
    CHECK(order == sent_order);

    // Delays are drawn to the nanosecond, so two equal delivery times mean a message was
    // held back behind an earlier one that drew a longer delay: the case under test.
    const auto sent = events_of(engine, trace_kind::message_sent);
    REQUIRE(sent.size() == 50);
    int held_back = 0;
    for (std::size_t i = 1; i < sent.size(); ++i) {
        REQUIRE(sent[i]->instant("deliver_at") >= sent[i - 1]->instant("deliver_at"));
        if (sent[i]->instant("deliver_at") == sent[i - 1]->instant("deliver_at")) ++held_back;
    }
    CHECK(held_back > 0);
}

TEST_CASE("the two directions of a link are ordered independently") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::uniform(1_ms, 100_ms));
    std::vector<Duration> downward;
    engine.schedule_at(at(1_s), client, [&] {
        // A queue of messages towards the store...
        for (int i = 0; i < 50; ++i) network.send(client, store, "bulk", [] {});
    });
    engine.schedule_at(at(1_s), store, [&] {
        // ...neither holds back nor shifts the draws of a message the other way.
        network.send(store, client, "reply", [&] { downward.push_back(engine.now() - at(1_s)); });
    });
    engine.run(at(1_min));
    RandomStream own_direction = engine.random_stream("link/redis->server-1");
    REQUIRE(downward.size() == 1);
    CHECK(downward[0] == own_direction.uniform(1_ms, 100_ms));
}

TEST_CASE("a message is traced as message.sent and message.delivered") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(5_ms));
    std::vector<MessageId> ids;
    engine.schedule_at(at(1_s), client, [&] {
        ids.push_back(network.next_message_id());
        ids.push_back(network.send(client, store, "SET lock:renewals 7f3a9c1e NX PX 30000", [] {}));
        ids.push_back(network.next_message_id());
    });
    engine.run(at(1_min));
    REQUIRE(ids.size() == 3);
    CHECK(ids[1] == ids[0]);
    CHECK(ids[2] == ids[1] + 1);

    const auto sent = events_of(engine, trace_kind::message_sent);
    REQUIRE(sent.size() == 1);
    CHECK(sent[0]->at == at(1_s));
    CHECK(sent[0]->node == client);
    CHECK(sent[0]->integer("id") == static_cast<std::int64_t>(ids[1]));
    CHECK(sent[0]->node_ref("to") == store);
    CHECK(sent[0]->text("label") == "SET lock:renewals 7f3a9c1e NX PX 30000");
    CHECK(sent[0]->instant("deliver_at") == at(1_s + 5_ms));
    CHECK_FALSE(sent[0]->has("reply_to"));

    const auto delivered = events_of(engine, trace_kind::message_delivered);
    REQUIRE(delivered.size() == 1);
    CHECK(delivered[0]->at == at(1_s + 5_ms));
    CHECK(delivered[0]->node == store);
    CHECK(delivered[0]->integer("id") == static_cast<std::int64_t>(ids[1]));
    CHECK(delivered[0]->node_ref("from") == client);
    CHECK(delivered[0]->text("label") == "SET lock:renewals 7f3a9c1e NX PX 30000");
}

TEST_CASE("a message to a paused node is handled when the pause ends") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_ms));
    std::vector<Instant> delivered;
    engine.schedule_at(at(1_s), no_node, [&] { engine.pause(store, 5_s, "fork"); });
    engine.schedule_at(at(2_s), client,
                       [&] { network.send(client, store, "PING", [&] { delivered.push_back(engine.now()); }); });
    engine.run(at(1_min));
    CHECK(delivered == std::vector<Instant>{at(6_s)});
    const auto traced = events_of(engine, trace_kind::message_delivered);
    REQUIRE(traced.size() == 1);
    CHECK(traced[0]->at == at(6_s));
}

// --- calls ------------------------------------------------------------------------

TEST_CASE("call returns the handler's value after a round trip") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_ms));
    CallOutcome outcome;
    std::vector<Instant> handled_at;
    engine.spawn(client, caller(Host(engine, client), network, store, 7, std::nullopt, outcome, handled_at));
    engine.run(at(1_min));
    CHECK(outcome.reply == std::optional<int>{7});
    CHECK(handled_at == std::vector<Instant>{at(1_ms)});
    CHECK(outcome.returned_at == at(2_ms));
    CHECK(outcome.slept_until == at(10_s + 2_ms));
}

TEST_CASE("a call's reply names its request with reply_to") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_ms));
    CallOutcome outcome;
    std::vector<Instant> handled_at;
    engine.spawn(client, caller(Host(engine, client), network, store, 7, std::nullopt, outcome, handled_at));
    engine.run(at(1_min));

    const auto sent = events_of(engine, trace_kind::message_sent);
    REQUIRE(sent.size() == 2);
    const TraceEvent& request = *sent[0];
    const TraceEvent& reply = *sent[1];
    CHECK(request.node == client);
    CHECK(request.text("label") == "GET balance");
    CHECK_FALSE(request.has("reply_to"));
    CHECK(reply.node == store);
    CHECK(reply.node_ref("to") == client);
    CHECK(reply.text("label") == "7");
    REQUIRE(reply.has("reply_to"));
    CHECK(reply.integer("reply_to") == request.integer("id"));
    CHECK(reply.integer("id") != request.integer("id"));
}

TEST_CASE("a reply that beats the timeout wins and the timeout resumes nothing") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_ms));
    CallOutcome outcome;
    std::vector<Instant> handled_at;
    engine.spawn(client, caller(Host(engine, client), network, store, 7, 5_s, outcome, handled_at));
    engine.run(at(1_min));
    CHECK(outcome.reply == std::optional<int>{7});
    CHECK(outcome.returned_at == at(2_ms));
    // Had the timeout at 5s resumed the process again, its sleep would have ended there.
    CHECK(outcome.slept_until == at(10_s + 2_ms));
}

TEST_CASE("a call whose timeout is shorter than the round trip returns nothing and drops the late reply") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_s));
    CallOutcome outcome;
    std::vector<Instant> handled_at;
    engine.spawn(client, caller(Host(engine, client), network, store, 7, 500_ms, outcome, handled_at));
    engine.run(at(1_min));
    CHECK_FALSE(outcome.reply.has_value());
    CHECK(outcome.returned_at == at(500_ms));
    // The server still handled the request, and the reply still arrived...
    CHECK(handled_at == std::vector<Instant>{at(1_s)});
    const auto delivered = events_of(engine, trace_kind::message_delivered);
    REQUIRE(delivered.size() == 2);
    CHECK(delivered[1]->node == client);
    CHECK(delivered[1]->at == at(2_s));
    // ...but resumed nothing: the sleep that began at 0.5s ran its full 10s.
    CHECK(outcome.slept_until == at(10_s + 500_ms));
}

TEST_CASE("a late reply does not resume a later call of the same process") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_s));
    std::vector<std::optional<int>> replies;
    std::vector<Instant> returned_at;
    engine.spawn(client,
                 [](Host host, Network& network, NodeId store, std::vector<std::optional<int>>& replies,
                    std::vector<Instant>& returned_at) -> Task<void> {
                     auto first = call(
                         network, host, store, "GET first",
                         [] {
                             return Answer<int>{1, "1"};
                         },
                         500_ms);
                     replies.push_back(co_await first);
                     returned_at.push_back(host.engine().now());
                     // The first reply arrives at 2s, while this second call is waiting for its own.
                     auto second = call(network, host, store, "GET second", [] { return Answer<int>{2, "2"}; });
                     replies.push_back(co_await second);
                     returned_at.push_back(host.engine().now());
                 }(Host(engine, client), network, store, replies, returned_at));
    engine.run(at(1_min));
    CHECK(replies == std::vector<std::optional<int>>{std::nullopt, 2});
    CHECK(returned_at == std::vector<Instant>{at(500_ms), at(2_s + 500_ms)});
}

TEST_CASE("a paused server handles a request after the pause ends") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_s));
    engine.schedule_at(midnight, no_node, [&engine, store] { engine.pause(store, 5_s, "fork"); });
    CallOutcome outcome;
    std::vector<Instant> handled_at;
    engine.spawn(client, caller(Host(engine, client), network, store, 7, std::nullopt, outcome, handled_at));
    engine.run(at(1_min));
    // The request arrives at 1s but waits for the pause; the reply leaves at 5s.
    CHECK(handled_at == std::vector<Instant>{at(5_s)});
    CHECK(outcome.reply == std::optional<int>{7});
    CHECK(outcome.returned_at == at(6_s));
}

TEST_CASE("a call to a paused server times out while the server is frozen") {
    Engine engine(1);
    Network network(engine);
    const NodeId client = engine.add_node("server-1");
    const NodeId store = engine.add_node("redis");
    network.connect(client, store, DelayModel::fixed(1_ms));
    engine.schedule_at(midnight, no_node, [&engine, store] { engine.pause(store, 5_s, "fork"); });
    CallOutcome outcome;
    std::vector<Instant> handled_at;
    engine.spawn(client, caller(Host(engine, client), network, store, 7, 500_ms, outcome, handled_at));
    engine.run(at(1_min));
    CHECK_FALSE(outcome.reply.has_value());
    CHECK(outcome.returned_at == at(500_ms));
    CHECK(handled_at == std::vector<Instant>{at(5_s)});
    CHECK(outcome.slept_until == at(10_s + 500_ms));
}

TEST_CASE("a deferred label is made only when the trace shows the message, and reads as fmt::format would") {
    for (const bool tracing : {false, true}) {
        Engine engine(1);
        Network network(engine);
        network.set_tracing_messages(tracing);
        const NodeId client = engine.add_node("server-1");
        const NodeId store = engine.add_node("redis");
        network.connect(client, store, DelayModel::fixed(1_ms));
        int made = 0;
        const std::string key = "lock:renewals";
        engine.schedule_at(at(1_s), client, [&] {
            network.send(client, store, MessageText::made_by([&made, key] {
                             ++made;
                             return fmt::format("SET {} 7f3a9c1e NX PX {}", key, 30000);
                         }),
                         [] {});
            network.send(client, store, deferred_label("DEL {}", key), [] {});
        });
        engine.run(at(1_min));
        CHECK(made == (tracing ? 1 : 0));
        std::vector<std::string> labels;
        for (const auto& event : engine.trace().events())
            if (event.kind == trace_kind::message_sent) labels.push_back(std::string(event.text("label")));
        if (tracing)
            CHECK(labels == std::vector<std::string>{"SET lock:renewals 7f3a9c1e NX PX 30000", "DEL lock:renewals"});
        else
            CHECK(labels.empty());
    }
}
