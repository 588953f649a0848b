// sim/network.hpp under faults: links that lose, duplicate or reorder what they carry,
// directions cut (a partition) or held back (a delay spike), as the receiving node and
// the trace see them; last, partitions as a scenario's faults place them.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"
#include "sim/rpc.hpp"
#include "sim/tcp_stream.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// A client, a store and one link between them: where most tests here start.
struct TwoNodes {
    explicit TwoNodes(DelayModel delay, LinkBehaviour behaviour = {}) {
        network.connect(client, store, delay, behaviour);
    }
    Engine engine{1};
    Network network{engine};
    NodeId client = engine.add_node("server-1");
    NodeId store = engine.add_node("redis");
};

// Sends `count` numbered messages from `from` to `to`, one a second from 1s: far enough
// apart that ordering never holds one back. `arrived` collects their numbers on arrival.
// On the direction's stream unless told: what a link loses or cuts is retransmitted (the
// tests of loss send datagrams).
void send_one_a_second(Engine& engine, Network& network, NodeId from, NodeId to, int count, std::vector<int>& arrived,
                       Connection connection = Connection::shared) {
    for (int i = 0; i < count; ++i) {
        engine.schedule_at(at(1_s + 1_s * i), from, [&network, &arrived, from, to, i, connection] {
            network.send(
                from, to, "PING", [&arrived, i] { arrived.push_back(i); }, std::nullopt, connection);
        });
    }
}

// Sends one message from `from` to `to` at `when` and notes the true time it arrives.
void send_at(Engine& engine, Network& network, Instant when, NodeId from, NodeId to, std::vector<Instant>& arrivals,
             Connection connection = Connection::shared) {
    engine.schedule_at(when, from, [&engine, &network, &arrivals, from, to, connection] {
        network.send(
            from, to, "PING", [&engine, &arrivals] { arrivals.push_back(engine.now()); }, std::nullopt, connection);
    });
}

std::set<std::set<std::uint32_t>> groups_of(const Network& network) {
    std::set<std::set<std::uint32_t>> groups;
    for (const auto& group : network.reachable_groups()) {
        std::set<std::uint32_t> members;
        for (NodeId id : group) members.insert(id.index);
        groups.insert(members);
    }
    return groups;
}

// What a calling process saw of one call and of the sleep after it: a second, stray
// resumption would add a reply or cut the sleep short.
struct CallResumptions {
    std::vector<std::optional<int>> replies;
    Instant returned_at{-1};
    Instant slept_until{-1};
};

Task<void> call_then_sleep(Host host, Network& network, NodeId server, int& handled, CallResumptions& outcome) {
    int* handled_count = &handled;
    auto request = call(network, host, server, "GET balance", [handled_count] {
        ++*handled_count;
        return Answer<int>{7, "7"};
    });
    outcome.replies.push_back(co_await request);
    outcome.returned_at = host.engine().now();
    auto nap = host.sleep(10_s);
    co_await nap;
    outcome.slept_until = host.engine().now();
}

// Runs a small scenario (two servers charging customers 41 to 44 under a Redis lock with
// a 30s TTL) with `faults`, and hands back its one design's trace.
Trace run_with_faults(const std::string& faults) {
    const Scenario scenario = parse_scenario(R"({
  "name": "network faults",
  "description": "network faults applied by the world",
  "seed": 7,
  "horizon": "10m",
  "servers": ["server-1", "server-2"],
  "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s", "retry": { "min": "1s", "max": "2s" } },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42, 43, 44], "period": "2026-10", "work_per_customer": "20s" },
  "faults": )" + faults + R"(,
  "designs": { "only": {} }
})",
                                             "network-faults.json", metric_names());
    ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    REQUIRE(outcome.designs.size() == 1);
    return std::move(outcome.designs[0].trace);
}

// The messages `from` sent to `to` in [begin, end), and of those, the ones lost to a cut.
struct Crossings {
    int sent = 0;
    int lost_to_cut = 0;                    // datagrams
    int stalled_by_cut = 0;                 // on a stream: retransmitted until the cut heals
    std::vector<Instant> stalled_arrivals;  // when those arrived
};
Crossings crossings(const Trace& trace, const std::string& from, const std::string& to, Instant begin, Instant end) {
    const NodeId source = *trace.find_node(from);
    const NodeId target = *trace.find_node(to);
    Crossings result;
    std::set<std::int64_t> stalled;
    for (const auto& event : trace.events()) {
        if (event.kind == trace_kind::message_delivered && stalled.contains(event.integer("id")))
            result.stalled_arrivals.push_back(event.at);
        const bool message = event.kind == trace_kind::message_sent || event.kind == trace_kind::message_lost ||
                             event.kind == trace_kind::message_stalled;
        if (!message || event.node != source || event.at < begin || event.at >= end || event.node_ref("to") != target)
            continue;
        if (event.kind == trace_kind::message_sent) {
            ++result.sent;
        } else if (event.kind == trace_kind::message_lost && event.flag("cut")) {
            ++result.lost_to_cut;
        } else if (event.kind == trace_kind::message_stalled && event.flag("cut")) {
            ++result.stalled_by_cut;
            stalled.insert(event.integer("id"));
        }
    }
    return result;
}

}  // namespace

// --- loss -------------------------------------------------------------------------

TEST_CASE("a link that loses one datagram in two loses about half of many, each traced as message.lost") {
    TwoNodes world(DelayModel::fixed(1_ms), LinkBehaviour{.loss = Odds{1, 2}});
    constexpr int sent = 10'000;
    std::vector<int> arrived;
    send_one_a_second(world.engine, world.network, world.client, world.store, sent, arrived, Connection::datagram);
    world.engine.run(at(1_s * (sent + 10)));

    const auto lost = events_of(world.engine, trace_kind::message_lost);
    // The standard deviation of the lost fraction is 0.5%; allow four of them.
    CHECK(static_cast<double>(lost.size()) / sent == Approx(0.5).margin(0.02));
    CHECK(arrived.size() + lost.size() == static_cast<std::size_t>(sent));

    // Every message is either lost or delivered, never both: the lost ids are exactly
    // those that never arrived.
    std::set<std::int64_t> lost_ids;
    for (const auto* event : lost) {
        REQUIRE(event->node == world.client);
        REQUIRE(event->node_ref("to") == world.store);
        REQUIRE_FALSE(event->flag("cut"));
        lost_ids.insert(event->integer("id"));
    }
    std::set<std::int64_t> delivered_ids;
    for (const auto* event : events_of(world.engine, trace_kind::message_delivered))
        delivered_ids.insert(event->integer("id"));
    CHECK(delivered_ids.size() == arrived.size());
    for (std::int64_t id : lost_ids) REQUIRE_FALSE(delivered_ids.contains(id));
}

TEST_CASE("a link with no loss, or loss 0 in any number, loses nothing") {
    for (const LinkBehaviour behaviour : {LinkBehaviour{}, LinkBehaviour{.loss = Odds{0, 2}}}) {
        TwoNodes world(DelayModel::uniform(1_ms, 5_ms), behaviour);
        std::vector<int> arrived;
        send_one_a_second(world.engine, world.network, world.client, world.store, 1000, arrived, Connection::datagram);
        world.engine.run(at(1_s * 1010));
        CHECK(arrived.size() == 1000);
        CHECK(events_of(world.engine, trace_kind::message_lost).empty());
    }
}

TEST_CASE("a link that loses everything delivers no datagram and traces every loss") {
    TwoNodes world(DelayModel::fixed(1_ms), LinkBehaviour{.loss = Odds{1, 1}});
    std::vector<int> arrived;
    send_one_a_second(world.engine, world.network, world.client, world.store, 100, arrived, Connection::datagram);
    world.engine.run(at(1_s * 110));
    CHECK(arrived.empty());
    CHECK(events_of(world.engine, trace_kind::message_lost).size() == 100);
    CHECK(events_of(world.engine, trace_kind::message_delivered).empty());
}

// --- duplication ------------------------------------------------------------------

TEST_CASE("a duplicated message is handled twice at the same instant, the copy traced as duplicate") {
    TwoNodes world(DelayModel::fixed(5_ms), LinkBehaviour{.duplication = Odds{1, 1}});
    std::vector<Instant> arrivals;
    send_at(world.engine, world.network, at(1_s), world.client, world.store, arrivals);
    world.engine.run(at(1_min));

    CHECK(arrivals == std::vector<Instant>{at(1_s + 5_ms), at(1_s + 5_ms)});
    const auto sent = events_of(world.engine, trace_kind::message_sent);
    REQUIRE(sent.size() == 1);
    const auto delivered = events_of(world.engine, trace_kind::message_delivered);
    REQUIRE(delivered.size() == 2);
    CHECK(delivered[0]->integer("id") == sent[0]->integer("id"));
    CHECK(delivered[1]->integer("id") == sent[0]->integer("id"));
    CHECK_FALSE(delivered[0]->flag("duplicate"));
    CHECK(delivered[1]->flag("duplicate"));
    CHECK(delivered[1]->node == world.store);
    CHECK(delivered[1]->node_ref("from") == world.client);
}

TEST_CASE("a link that duplicates one message in four duplicates about a quarter of many") {
    TwoNodes world(DelayModel::fixed(1_ms), LinkBehaviour{.duplication = Odds{1, 4}});
    constexpr int sent = 10'000;
    std::vector<int> arrived;
    send_one_a_second(world.engine, world.network, world.client, world.store, sent, arrived);
    world.engine.run(at(1_s * (sent + 10)));
    const auto duplicates = static_cast<double>(arrived.size() - sent);
    // The standard deviation of the duplicated fraction is 0.43%; allow four and a bit.
    CHECK(duplicates / sent == Approx(0.25).margin(0.02));
    CHECK(events_of(world.engine, trace_kind::message_lost).empty());
}

TEST_CASE("a call over a duplicating link returns once although the request and every reply come twice") {
    TwoNodes world(DelayModel::fixed(1_ms), LinkBehaviour{.duplication = Odds{1, 1}});
    int handled = 0;
    CallResumptions outcome;
    world.engine.spawn(world.client,
                       call_then_sleep(Host(world.engine, world.client), world.network, world.store, handled, outcome));
    world.engine.run(at(1_min));

    // The server sees the request twice and answers both; each answer comes twice.
    CHECK(handled == 2);
    int replies_delivered = 0;
    for (const auto* event : events_of(world.engine, trace_kind::message_delivered))
        if (event->node == world.client) ++replies_delivered;
    CHECK(replies_delivered == 4);
    // The caller is resumed by the first reply only: one value, and a sleep that ran its
    // full 10s (a second resumption would have ended it at once).
    CHECK(outcome.replies == std::vector<std::optional<int>>{7});
    CHECK(outcome.returned_at == at(2_ms));
    CHECK(outcome.slept_until == at(10_s + 2_ms));
}

// --- reordering -------------------------------------------------------------------

TEST_CASE("a reordering link lets a later message that drew a shorter delay arrive first") {
    // The same fifty sends at the same instant over the same draws, with and without
    // reordering: the draws are the link direction's own stream, replayed here.
    const auto fifty_at_once = [](bool reorder, std::vector<int>& order, std::vector<Instant>& arrivals) {
        TwoNodes world(DelayModel::uniform(1_ms, 100_ms), LinkBehaviour{.reorder = reorder});
        world.engine.schedule_at(at(1_s), world.client, [&world, &order, &arrivals] {
            for (int i = 0; i < 50; ++i)
                world.network.send(world.client, world.store, "message", [&world, &order, &arrivals, i] {
                    order.push_back(i);
                    arrivals.push_back(world.engine.now());
                });
        });
        world.engine.run(at(1_min));
    };
    RandomStream draws(1, "link/server-1->redis");
    std::vector<Instant> own_delivery;
    for (int i = 0; i < 50; ++i) own_delivery.push_back(at(1_s) + draws.uniform(1_ms, 100_ms));

    SECTION("with reorder each message arrives after its own drawn delay") {
        std::vector<int> order;
        std::vector<Instant> arrivals;
        fifty_at_once(true, order, arrivals);
        REQUIRE(order.size() == 50);
        for (std::size_t k = 0; k < order.size(); ++k)
            REQUIRE(arrivals[k] == own_delivery[static_cast<std::size_t>(order[k])]);
        // Some later message overtook an earlier one.
        CHECK_FALSE(std::is_sorted(order.begin(), order.end()));
    }
    SECTION("by default they arrive in the order sent, a short draw waiting behind a long one") {
        std::vector<int> order;
        std::vector<Instant> arrivals;
        fifty_at_once(false, order, arrivals);
        REQUIRE(order.size() == 50);
        std::vector<int> sent_order(50);
        for (int i = 0; i < 50; ++i) sent_order[static_cast<std::size_t>(i)] = i;
        CHECK(order == sent_order);
        Instant latest{};
        for (std::size_t i = 0; i < 50; ++i) {
            latest = std::max(latest, own_delivery[i]);
            REQUIRE(arrivals[i] == latest);
        }
    }
}

// --- cuts (partitions) ------------------------------------------------------------

TEST_CASE("a cut direction loses the datagrams sent on it while the other direction still delivers") {
    TwoNodes world(DelayModel::fixed(1_ms));
    world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
    std::vector<Instant> at_store;
    std::vector<Instant> at_client;
    send_at(world.engine, world.network, at(2_s), world.client, world.store, at_store, Connection::datagram);
    send_at(world.engine, world.network, at(2_s), world.store, world.client, at_client, Connection::datagram);
    world.engine.run(at(1_min));

    CHECK(at_store.empty());
    CHECK(at_client == std::vector<Instant>{at(2_s + 1_ms)});
    const auto lost = events_of(world.engine, trace_kind::message_lost);
    REQUIRE(lost.size() == 1);
    CHECK(lost[0]->at == at(2_s));
    CHECK(lost[0]->node == world.client);
    CHECK(lost[0]->node_ref("to") == world.store);
    CHECK(lost[0]->flag("cut"));
}

TEST_CASE("healing a cut direction delivers the datagrams sent after the heal") {
    TwoNodes world(DelayModel::fixed(1_ms));
    world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
    world.engine.schedule_at(at(3_s), no_node, [&world] { world.network.heal(world.client, world.store); });
    std::vector<Instant> at_store;
    for (Duration t : {500_ms, 2_s, 4_s})
        send_at(world.engine, world.network, at(t), world.client, world.store, at_store, Connection::datagram);
    world.engine.run(at(1_min));

    CHECK(at_store == std::vector<Instant>{at(500_ms + 1_ms), at(4_s + 1_ms)});
    const auto lost = events_of(world.engine, trace_kind::message_lost);
    REQUIRE(lost.size() == 1);
    CHECK(lost[0]->at == at(2_s));
}

TEST_CASE("a datagram lost on a cut direction does not hold back what is sent after the heal") {
    // 1. A hold makes the message sent at 1s due at 11s...
    // 2. ...but the direction is cut, so it is lost and never arrives.
    // 3. After the heal (and the hold's end), a message sent at 3s has nothing real to
    //    wait behind: it arrives after its own 1ms.
    TwoNodes world(DelayModel::fixed(1_ms));
    world.engine.schedule_at(midnight, no_node, [&world] {
        world.network.hold(world.client, world.store, 10_s, at(2_s));
        world.network.cut(world.client, world.store);
    });
    world.engine.schedule_at(at(1_s + 500_ms), no_node, [&world] { world.network.heal(world.client, world.store); });
    std::vector<Instant> at_store;
    send_at(world.engine, world.network, at(1_s), world.client, world.store, at_store, Connection::datagram);
    send_at(world.engine, world.network, at(3_s), world.client, world.store, at_store, Connection::datagram);
    world.engine.run(at(1_min));
    REQUIRE(events_of(world.engine, trace_kind::message_lost).size() == 1);
    CHECK(at_store == std::vector<Instant>{at(3_s + 1_ms)});
}

TEST_CASE("cutting both ways between two sets splits the reachable groups, and healing joins them again") {
    Engine engine(1);
    Network network(engine);
    const NodeId server_1 = engine.add_node("server-1");
    const NodeId server_2 = engine.add_node("server-2");
    const NodeId store = engine.add_node("redis");
    const NodeId billing = engine.add_node("billing-db");
    const std::vector<NodeId> nodes{server_1, server_2, store, billing};
    for (std::size_t a = 0; a < nodes.size(); ++a)
        for (std::size_t b = a + 1; b < nodes.size(); ++b) network.connect(nodes[a], nodes[b], DelayModel::fixed(1_ms));
    using Groups = std::set<std::set<std::uint32_t>>;
    CHECK(groups_of(network) == Groups{{0, 1, 2, 3}});

    const auto across = [&](auto action) {
        for (NodeId a : {server_1, server_2})
            for (NodeId b : {store, billing}) {
                action(a, b);
                action(b, a);
            }
    };
    across([&](NodeId from, NodeId to) { network.cut(from, to); });
    CHECK(groups_of(network) == Groups{{0, 1}, {2, 3}});

    across([&](NodeId from, NodeId to) { network.heal(from, to); });
    CHECK(groups_of(network) == Groups{{0, 1, 2, 3}});
}

TEST_CASE("the reachable groups count a link cut one way as cut, but go around it over open links") {
    using Groups = std::set<std::set<std::uint32_t>>;
    SECTION("two nodes whose only link is cut one way are two groups") {
        Engine engine(1);
        Network network(engine);
        const NodeId a = engine.add_node("server-1");
        const NodeId b = engine.add_node("redis");
        network.connect(a, b, DelayModel::fixed(1_ms));
        network.cut(a, b);
        CHECK(groups_of(network) == Groups{{0}, {1}});
    }
    SECTION("with a third node linked to both, the two still reach each other through it") {
        Engine engine(1);
        Network network(engine);
        const NodeId a = engine.add_node("server-1");
        const NodeId b = engine.add_node("redis");
        const NodeId c = engine.add_node("billing-db");
        network.connect(a, b, DelayModel::fixed(1_ms));
        network.connect(a, c, DelayModel::fixed(1_ms));
        network.connect(c, b, DelayModel::fixed(1_ms));
        network.cut(a, b);
        CHECK(groups_of(network) == Groups{{0, 1, 2}});
    }
}

// --- holds (delay spikes) ---------------------------------------------------------

TEST_CASE("a held direction delays only what is sent before the hold ends, and only that way") {
    TwoNodes world(DelayModel::fixed(10_ms));
    world.engine.schedule_at(at(1_s), no_node,
                             [&world] { world.network.hold(world.client, world.store, 5_s, at(3_s)); });
    std::vector<Instant> at_store;
    std::vector<Instant> at_client;
    send_at(world.engine, world.network, at(500_ms), world.client, world.store, at_store);  // before the hold
    send_at(world.engine, world.network, at(2_s), world.client, world.store, at_store);     // during it
    send_at(world.engine, world.network, at(2_s), world.store, world.client, at_client);    // the other way
    send_at(world.engine, world.network, at(8_s), world.client, world.store, at_store);     // after it
    world.engine.run(at(1_min));

    CHECK(at_store == std::vector<Instant>{at(510_ms), at(2_s + 10_ms + 5_s), at(8_s + 10_ms)});
    CHECK(at_client == std::vector<Instant>{at(2_s + 10_ms)});
    // The trace says when the held message will arrive, and nothing is lost.
    const auto sent = events_of(world.engine, trace_kind::message_sent);
    REQUIRE(sent.size() == 4);
    CHECK(sent[1]->instant("deliver_at") == at(7_s + 10_ms));
    CHECK(events_of(world.engine, trace_kind::message_lost).empty());
}

TEST_CASE("a short hold that starts during a longer one does not end the longer one") {
    // Two delay spikes on one direction: 5s extra until 10s, then 1s extra until 3s.
    // A message sent at 5s is inside the first spike only and is held by its 5s.
    TwoNodes world(DelayModel::fixed(1_ms));
    world.engine.schedule_at(at(1_s), no_node,
                             [&world] { world.network.hold(world.client, world.store, 5_s, at(10_s)); });
    world.engine.schedule_at(at(2_s), no_node,
                             [&world] { world.network.hold(world.client, world.store, 1_s, at(3_s)); });
    std::vector<Instant> at_store;
    send_at(world.engine, world.network, at(5_s), world.client, world.store, at_store);
    world.engine.run(at(1_min));
    CHECK(at_store == std::vector<Instant>{at(10_s + 1_ms)});
}

TEST_CASE("a message sent at the instant a hold ends is not held") {
    TwoNodes world(DelayModel::fixed(10_ms));
    world.engine.schedule_at(at(1_s), no_node,
                             [&world] { world.network.hold(world.client, world.store, 5_s, at(3_s)); });
    std::vector<Instant> at_store;
    send_at(world.engine, world.network, at(3_s), world.client, world.store, at_store);
    world.engine.run(at(1_min));
    CHECK(at_store == std::vector<Instant>{at(3_s + 10_ms)});
}

TEST_CASE("a message sent after a hold ends still queues behind a held one, as on one connection") {
    TwoNodes world(DelayModel::fixed(10_ms));
    world.engine.schedule_at(at(1_s), no_node,
                             [&world] { world.network.hold(world.client, world.store, 5_s, at(3_s)); });
    std::vector<Instant> at_store;
    send_at(world.engine, world.network, at(2_s), world.client, world.store, at_store);
    send_at(world.engine, world.network, at(4_s), world.client, world.store, at_store);
    world.engine.run(at(1_min));
    CHECK(at_store == std::vector<Instant>{at(7_s + 10_ms), at(7_s + 10_ms)});
}

TEST_CASE("a held message lands no sooner than its hold's end, the next behind it, and only the next is held") {
    TwoNodes world(DelayModel::fixed(10_ms));
    world.engine.schedule_at(at(1_s), no_node,
                             [&world] { world.network.hold_next(world.client, world.store, at(9_s), 7); });
    std::vector<Instant> at_store;
    std::vector<Instant> at_client;
    send_at(world.engine, world.network, at(2_s), world.store, world.client, at_client);  // the other way: not held
    send_at(world.engine, world.network, at(3_s), world.client, world.store, at_store);   // held until 9 s
    send_at(world.engine, world.network, at(4_s), world.client, world.store, at_store);   // waits behind it
    send_at(world.engine, world.network, at(12_s), world.client, world.store, at_store);  // the hold was spent
    world.engine.run(at(1_min));
    CHECK(at_client == std::vector<Instant>{at(2_s + 10_ms)});
    CHECK(at_store == std::vector<Instant>{at(9_s), at(9_s), at(12_s + 10_ms)});
    const auto held = events_of(world.engine, trace_kind::message_held);
    REQUIRE(held.size() == 1);
    CHECK(held[0]->integer("cause") == 7);
    CHECK(held[0]->duration("extra") == 6_s - 10_ms);
}

TEST_CASE("a hold that ends before the message would land anyway holds nothing, and a lost message spends it") {
    TwoNodes world(DelayModel::fixed(2_s));
    world.network.hold_next(world.client, world.store, at(1_s), 7);  // the message lands at 2 s anyway
    std::vector<Instant> at_store;
    send_at(world.engine, world.network, at(0_s), world.client, world.store, at_store);
    world.engine.schedule_at(at(10_s), no_node, [&world] {
        world.network.cut(world.client, world.store, 8);
        world.network.hold_next(world.client, world.store, at(30_s), 9);
    });
    send_at(world.engine, world.network, at(11_s), world.client, world.store, at_store,
            Connection::datagram);  // lost to the cut
    world.engine.schedule_at(at(12_s), no_node, [&world] { world.network.heal(world.client, world.store, 8); });
    send_at(world.engine, world.network, at(13_s), world.client, world.store, at_store);  // not held: spent
    world.engine.run(at(1_min));
    CHECK(at_store == std::vector<Instant>{at(2_s), at(15_s)});
    CHECK(events_of(world.engine, trace_kind::message_held).empty());
}

// --- what each fault touched, as the trace names it ------------------------------------

TEST_CASE("each message a fault holds back or loses names the fault's cause, even when messages are not traced") {
    TwoNodes world(DelayModel::fixed(1_ms));
    world.network.set_tracing_messages(false);  // as check and the runs without a fault leave them out
    world.engine.schedule_at(at(1_s), no_node, [&world] {
        world.network.hold(world.client, world.store, 5_s, at(3_s), 101);
        world.network.hold(world.client, world.store, 2_s, at(3_s), 102);  // shorter: the 5 s one holds it
        world.network.cut(world.store, world.client, 103);
        world.network.cut(world.store, world.client, 104);  // the older cut is the one that loses it
    });
    world.engine.schedule_at(at(4_s), no_node, [&world] {
        world.network.lose(world.client, world.store, {1, 1}, at(5_s), 105);
    });
    std::vector<Instant> at_store;
    std::vector<Instant> at_client;
    send_at(world.engine, world.network, at(2_s), world.client, world.store, at_store);                         // held
    send_at(world.engine, world.network, at(2_s), world.store, world.client, at_client, Connection::datagram);  // cut
    send_at(world.engine, world.network, at(4_s + 500_ms), world.client, world.store, at_store,
            Connection::datagram);                                                       // lost in the burst
    send_at(world.engine, world.network, at(6_s), world.client, world.store, at_store);  // touched by nothing
    world.engine.run(at(1_min));

    CHECK(events_of(world.engine, trace_kind::message_sent).empty());
    const auto held = events_of(world.engine, trace_kind::message_held);
    REQUIRE(held.size() == 1);
    CHECK(held[0]->integer("cause") == 101);
    CHECK(held[0]->duration("extra") == 5_s);
    const auto lost = events_of(world.engine, trace_kind::message_lost);
    REQUIRE(lost.size() == 2);
    CHECK(lost[0]->flag("cut"));
    CHECK(lost[0]->integer("cause") == 103);
    CHECK_FALSE(lost[1]->flag("cut"));
    CHECK(lost[1]->integer("cause") == 105);
    CHECK(at_store.size() == 2);
}

TEST_CASE("a heal ends its own partition's cut, and a message lost to a link's own loss names no fault") {
    TwoNodes world(DelayModel::fixed(1_ms), LinkBehaviour{.loss = {1, 1}});
    world.network.cut(world.client, world.store, 7);
    world.network.cut(world.client, world.store, 8);
    world.network.heal(world.client, world.store, 7);
    std::vector<Instant> at_store;
    send_at(world.engine, world.network, at(1_s), world.client, world.store, at_store, Connection::datagram);
    world.engine.schedule_at(at(2_s), no_node, [&world] { world.network.heal(world.client, world.store, 8); });
    send_at(world.engine, world.network, at(3_s), world.client, world.store, at_store, Connection::datagram);
    world.engine.run(at(1_min));
    const auto lost = events_of(world.engine, trace_kind::message_lost);
    REQUIRE(lost.size() == 2);
    CHECK(lost[0]->integer("cause") == 8);  // the cut still in force
    CHECK_FALSE(lost[1]->flag("cut"));
    CHECK_FALSE(lost[1]->has("cause"));
}

// --- partitions as a scenario places them -----------------------------------------

TEST_CASE("a scenario's partition stalls the streams that cross it until it heals, and the trace tells when") {
    const Trace trace =
        run_with_faults(R"([{ "partition": [["server-1"], ["lock-store"]], "at": "5s", "heal_after": "30s" }])");
    // Every message server-1 sends the store while cut waits for its stream's
    // retransmission, and arrives after the heal (at 35 s; the retransmission that finds the
    // link open is at most 25.6 s after the one before it), none lost.
    const auto during = crossings(trace, "server-1", "lock-store", at(5_s), at(35_s));
    REQUIRE(during.sent > 0);
    CHECK(during.stalled_by_cut == during.sent);
    CHECK(during.lost_to_cut == 0);
    REQUIRE(during.stalled_arrivals.size() == static_cast<std::size_t>(during.sent));
    for (const Instant arrived : during.stalled_arrivals) CHECK((arrived >= at(35_s) && arrived < at(61_s)));
    const auto back = crossings(trace, "lock-store", "server-1", at(5_s), at(35_s));
    CHECK(back.stalled_by_cut == back.sent);
    CHECK(crossings(trace, "server-1", "lock-store", at(61_s), at(10_min)).stalled_by_cut == 0);
    CHECK(crossings(trace, "server-1", "billing-db", midnight, at(10_min)).stalled_by_cut == 0);

    std::vector<const TraceEvent*> partitioned;
    std::vector<const TraceEvent*> healed;
    for (const auto& event : trace.events()) {
        if (event.kind == trace_kind::network_partitioned) partitioned.push_back(&event);
        if (event.kind == trace_kind::network_healed) healed.push_back(&event);
    }
    REQUIRE(partitioned.size() == 1);
    CHECK(partitioned[0]->at == at(5_s));
    CHECK(partitioned[0]->text("cut") == "server-1 / lock-store");
    CHECK_FALSE(partitioned[0]->flag("one_way"));
    REQUIRE(healed.size() == 1);
    CHECK(healed[0]->at == at(35_s));
}

TEST_CASE("two overlapping partitions of the same nodes keep them apart until the later one heals") {
    // 1. At 5s a partition cuts server-1 from the lock store, to heal at 15s.
    // 2. At 10s a second partition cuts the same pair, to heal at 70s.
    // 3. At 15s the first heals; the second is still in force until 70s.
    const Trace trace = run_with_faults(R"([
      { "partition": [["server-1"], ["lock-store"]], "at": "5s", "heal_after": "10s" },
      { "partition": [["server-1"], ["lock-store"]], "at": "10s", "heal_after": "60s" }
    ])");
    const auto between_heals = crossings(trace, "server-1", "lock-store", at(15_s), at(70_s));
    REQUIRE(between_heals.sent > 0);
    CHECK(between_heals.stalled_by_cut == between_heals.sent);
    for (const Instant arrived : between_heals.stalled_arrivals) CHECK(arrived >= at(70_s));
}

// --- streams: what a cut or a lossy link does to a TCP connection ------------------------

TEST_CASE("a stream retransmits what a cut holds, 200 ms doubling, and delivers it in order after the heal") {
    TwoNodes world(DelayModel::fixed(1_ms));
    std::vector<Instant> arrivals;
    // Cut at 1 s; sent at 2 s and 3 s; healed at 4 s.
    world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
    send_at(world.engine, world.network, at(2_s), world.client, world.store, arrivals);
    send_at(world.engine, world.network, at(3_s), world.client, world.store, arrivals);
    world.engine.schedule_at(at(4_s), no_node, [&world] { world.network.heal(world.client, world.store); });
    world.engine.run(at(1_min));
    // Tries at 2.2 s, 2.6 s and 3.4 s meet the cut; the one at 5.0 s (3.4 + 1.6) gets
    // through, and the message behind it with it.
    CHECK(arrivals == std::vector<Instant>{at(5_s + 1_ms), at(5_s + 1_ms)});
    CHECK(events_of(world.engine, trace_kind::message_lost.name).empty());
    const auto stalled = events_of(world.engine, trace_kind::message_stalled.name);
    REQUIRE(stalled.size() == 2);
    CHECK(stalled[0]->at == at(2_s));
    CHECK(stalled[1]->at == at(3_s));
    CHECK(stalled[0]->flag("cut"));
}

TEST_CASE("a message sent on a stream after the heal still waits behind one it holds, a datagram does not") {
    TwoNodes world(DelayModel::fixed(1_ms));
    std::vector<Instant> stream;
    std::vector<Instant> datagram;
    world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
    send_at(world.engine, world.network, at(2_s), world.client, world.store, stream);
    world.engine.schedule_at(at(2_s + 500_ms), no_node, [&world] { world.network.heal(world.client, world.store); });
    // After the heal, before the next retransmission (2.6 s): behind the first on the stream.
    send_at(world.engine, world.network, at(2_s + 550_ms), world.client, world.store, stream);
    send_at(world.engine, world.network, at(2_s + 550_ms), world.client, world.store, datagram, Connection::datagram);
    world.engine.run(at(1_min));
    CHECK(stream == std::vector<Instant>{at(2_s + 601_ms), at(2_s + 601_ms)});
    CHECK(datagram == std::vector<Instant>{at(2_s + 551_ms)});
}

TEST_CASE(
    "a stream its sender closed still delivers what it held after the heal, and the sender's next message waits "
    "behind none of it") {
    TwoNodes world(DelayModel::fixed(1_ms));
    std::vector<Instant> first;
    std::vector<Instant> next;
    world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
    send_at(world.engine, world.network, at(2_s), world.client, world.store, first);
    world.engine.schedule_at(at(2_s + 500_ms), world.client,
                             [&world] { world.network.close_stream(world.client, world.store); });
    world.engine.schedule_at(at(3_s), no_node, [&world] { world.network.heal(world.client, world.store); });
    // After the heal, before the closed stream's next try (3.4 s): on its new stream, at once.
    send_at(world.engine, world.network, at(3_s + 100_ms), world.client, world.store, next);
    world.engine.run(at(1_min));
    CHECK(next == std::vector<Instant>{at(3_s + 101_ms)});
    CHECK(first == std::vector<Instant>{at(3_s + 401_ms)});  // the orphan still gets through
    const auto closed = events_of(world.engine, trace_kind::connection_closed.name);
    REQUIRE(closed.size() == 1);
    CHECK(closed[0]->at == at(2_s + 500_ms));
    CHECK(closed[0]->integer("orphaned") == 1);
}

namespace {
// At 2 s, a call with no timeout of its own: only a reply or a reset ends its wait.
Task<void> ask_without_timeout(TwoNodes& world, std::optional<int>& got, std::optional<Instant>& ended) {
    const Host client(world.engine, world.client);
    co_await client.sleep(2_s);
    auto request = call(world.network, client, world.store, "GET", [] { return Answer<int>{42, "42"}; });
    got = co_await request;
    ended = world.engine.now();
}
}  // namespace

TEST_CASE("a stream that cannot get through for 924.6 s is reset: its messages lost, the waiting caller told") {
    TwoNodes world(DelayModel::fixed(1_ms));
    world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
    std::optional<Instant> gave_up;
    std::optional<int> answer = 7;
    world.engine.spawn(world.client, ask_without_timeout(world, answer, gave_up));
    world.engine.run(at(60_min));
    REQUIRE(gave_up.has_value());
    CHECK_FALSE(answer.has_value());
    CHECK(*gave_up == at(2_s) + tcp_stream::gives_up_after());
    const auto reset = events_of(world.engine, trace_kind::connection_reset.name);
    REQUIRE(reset.size() == 1);
    CHECK(reset[0]->duration("after") == tcp_stream::gives_up_after());
    CHECK(reset[0]->integer("messages") == 1);
    CHECK(events_of(world.engine, trace_kind::message_lost.name).size() == 1);
}

TEST_CASE(
    "an orphaned stream gives up after 8 retransmissions, 102.2 s, not 924.6 s, and tells the closed end nothing") {
    TwoNodes world(DelayModel::fixed(1_ms));
    world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
    std::optional<Instant> gave_up;
    std::optional<int> answer = 7;
    world.engine.spawn(world.client, ask_without_timeout(world, answer, gave_up));
    world.engine.schedule_at(at(5_s), world.client,
                             [&world] { world.network.close_stream(world.client, world.store); });
    world.engine.run(at(60_min));
    CHECK(tcp_stream::gives_up_after(tcp_stream::orphan_retries) == 102'200_ms);
    const auto reset = events_of(world.engine, trace_kind::connection_reset.name);
    REQUIRE(reset.size() == 1);
    CHECK(reset[0]->at == at(2_s) + tcp_stream::gives_up_after(tcp_stream::orphan_retries));
    CHECK(reset[0]->integer("messages") == 1);
    CHECK_FALSE(gave_up.has_value());  // the caller that closed it hears nothing more
    // A stream closed with nothing in it orphans nothing.
    TwoNodes idle(DelayModel::fixed(1_ms));
    idle.network.close_stream(idle.client, idle.store);
    const auto closed = events_of(idle.engine, trace_kind::connection_closed.name);
    REQUIRE(closed.size() == 1);
    CHECK(closed[0]->integer("orphaned") == 0);
}

TEST_CASE(
    "a sender's crash ends its streams: a crashed machine's kernel sends nothing more, a crashed process's kernel "
    "still retransmits what it held") {
    const auto arrivals_after = [](CrashKind kind) {
        TwoNodes world(DelayModel::fixed(1_ms));
        std::vector<Instant> arrivals;
        world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
        send_at(world.engine, world.network, at(2_s), world.client, world.store, arrivals);
        world.engine.schedule_at(at(3_s), no_node, [&world, kind] { world.engine.crash(world.client, "test", kind); });
        world.engine.schedule_at(at(4_s), no_node, [&world] { world.network.heal(world.client, world.store); });
        world.engine.run(at(20_min));
        CHECK(events_of(world.engine, trace_kind::connection_reset.name).empty());
        return std::pair{arrivals, events_of(world.engine, trace_kind::message_lost.name).size()};
    };
    // Power lost at 3 s: the UPDATE on the wire since 2 s never arrives, lost at the crash.
    const auto [machine, machine_lost] = arrivals_after(CrashKind::machine);
    CHECK(machine.empty());
    CHECK(machine_lost == 1);
    // The process died, the kernel lives: the orphan gets through at the try of 5.0 s.
    const auto [process, process_lost] = arrivals_after(CrashKind::process);
    CHECK(process == std::vector<Instant>{at(5_s + 1_ms)});
    CHECK(process_lost == 0);
}

TEST_CASE("a crash hook that sends over a cut link, the node's first stalled message, ends the crash cleanly") {
    // A database client's kernel says goodbye for a dead process (models/stores/
    // database_lock_clients.cpp): the message stalls, and the network starts watching the
    // node's crashes while its crash hooks run.
    TwoNodes world(DelayModel::fixed(1_ms));
    std::vector<Instant> arrivals;
    world.engine.on_crash(world.client, [&world, &arrivals] {
        world.network.send(world.client, world.store, "connection closed",
                           [&world, &arrivals] { arrivals.push_back(world.engine.now()); });
    });
    // A hook after it still runs, from hooks the registration did not move.
    bool later_hook_ran = false;
    world.engine.on_crash(world.client, [&later_hook_ran] { later_hook_ran = true; });
    world.engine.schedule_at(at(1_s), no_node, [&world] { world.network.cut(world.client, world.store); });
    world.engine.schedule_at(at(2_s), no_node, [&world] { world.engine.crash(world.client, "test"); });
    world.engine.schedule_at(at(3_s), no_node, [&world] { world.network.heal(world.client, world.store); });
    world.engine.run(at(1_min));
    // Tries at 2.2, 2.6 and 3.4 s: the last finds the link healed.
    CHECK(arrivals == std::vector<Instant>{at(3_s + 401_ms)});
    CHECK(later_hook_ran);
}

TEST_CASE("a stream over a lossy link loses nothing: each lost segment is retransmitted") {
    TwoNodes world(DelayModel::fixed(1_ms), LinkBehaviour{.loss = Odds{1, 2}});
    std::vector<int> arrived;
    send_one_a_second(world.engine, world.network, world.client, world.store, 200, arrived);
    world.engine.run(at(60_min));
    REQUIRE(arrived.size() == 200);
    CHECK(std::is_sorted(arrived.begin(), arrived.end()));
    CHECK(events_of(world.engine, trace_kind::message_lost.name).empty());
    CHECK(events_of(world.engine, trace_kind::message_stalled.name).size() > 50);
}

namespace {
// At 2 s, a call whose handler keeps the server busy for 10 s before it answers.
Task<Answer<int>> answer_after_ten_seconds(Host server) {
    co_await server.sleep(10_s);
    co_return Answer<int>{42, "42"};
}
Task<void> ask_slow_server(TwoNodes& world, std::optional<int>& got, std::optional<Instant>& ended) {
    const Host client(world.engine, world.client);
    co_await client.sleep(2_s);
    auto request = call(world.network, client, world.store, "GET",
                        [server = Host(world.engine, world.store)] { return answer_after_ten_seconds(server); });
    got = co_await request;
    ended = world.engine.now();
}
}  // namespace

TEST_CASE(
    "a crash of the server's process resets the connection of a request awaiting its reply, a machine's crash does "
    "not") {
    for (const CrashKind kind : {CrashKind::process, CrashKind::machine}) {
        INFO(to_string(kind));
        TwoNodes world(DelayModel::fixed(1_ms));
        std::optional<Instant> ended;
        std::optional<int> answer = 7;
        world.engine.spawn(world.client, ask_slow_server(world, answer, ended));
        world.engine.schedule_at(at(5_s), no_node, [&world, kind] { world.engine.crash(world.store, "test", kind); });
        world.engine.run(at(60_min));
        const auto refused = events_of(world.engine, trace_kind::connection_refused.name);
        if (kind == CrashKind::process) {
            REQUIRE(ended.has_value());
            CHECK(*ended == at(5_s));
            CHECK_FALSE(answer.has_value());
            REQUIRE(refused.size() == 1);
            CHECK(refused[0]->integer("requests") == 1);
        } else {
            CHECK_FALSE(ended.has_value());  // nothing tells it: it waits for its own deadline
            CHECK(refused.empty());
        }
    }
}

TEST_CASE(
    "a request that reaches a crashed process is refused when it lands, and one that lands after the restart is "
    "served") {
    const auto ask_at = [](Duration restart_at) {
        TwoNodes world(DelayModel::fixed(1_ms));
        std::optional<Instant> ended;
        std::optional<int> answer = 7;
        world.engine.schedule_at(at(1_s), no_node, [&world] { world.engine.crash(world.store, "test"); });
        world.engine.schedule_at(at(restart_at), no_node, [&world] { world.engine.restart(world.store); });
        world.engine.spawn(world.client, ask_without_timeout(world, answer, ended));
        world.engine.run(at(60_min));
        return std::pair{answer, ended};
    };
    const auto [refused, refused_at] = ask_at(10_s);
    CHECK_FALSE(refused.has_value());
    CHECK(refused_at == at(2_s + 1_ms));
    // Sent at 2 s while it was down; it is back when the request lands, 1 ms later.
    const auto [served, served_at] = ask_at(2_s + 500_us);
    CHECK(served == std::optional<int>(42));
    CHECK(served_at == at(2_s + 2_ms));
}
