// A world of thousands of servers costs what its work touches, not the pairs of its nodes:
// the links of a full mesh are made when first used (and draw what links made up front
// would draw), the groups a partition leaves are found without visiting every pair, the
// loader finds a repeated server at once, and the terminal timeline stops drawing a
// column per node once they no longer fit side by side. Speed and memory are measured in
// docs/performance.md, never timed here.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "program_support.hpp"
#include "sim/network.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using namespace locksim::testing;

namespace {

// Each of `senders` sends a message to node 0 every 10 ms for a second; the true times
// they arrive, in order of arrival.
std::vector<std::int64_t> arrivals(bool every_pair, int nodes, int senders) {
    Engine engine(7);
    Network network(engine);
    std::vector<NodeId> ids;
    for (int i = 0; i < nodes; ++i) ids.push_back(engine.add_node("node-" + std::to_string(i)));
    const DelayModel delay = DelayModel::uniform(1_ms, 9_ms);
    if (every_pair)
        network.link_every_pair(delay);
    else
        for (int a = 0; a < nodes; ++a)
            for (int b = a + 1; b < nodes; ++b) network.connect(ids[a], ids[b], delay);
    std::vector<std::int64_t> arrived;
    for (int s = 1; s <= senders; ++s)
        for (int k = 0; k < 100; ++k)
            engine.schedule_at(at(10_ms * k), ids[s], [&, s] {
                network.send(ids[s], ids[0], "PING", [&] { arrived.push_back(engine.now().ns); });
            });
    engine.run(at(1_min));
    return arrived;
}

std::vector<std::vector<std::uint32_t>> groups(const Network& network) {
    std::vector<std::vector<std::uint32_t>> out;
    for (const auto& group : network.reachable_groups()) {
        auto& indexes = out.emplace_back();
        for (NodeId id : group) indexes.push_back(id.index);
    }
    return out;
}

}  // namespace

TEST_CASE("a link made when first used draws what a link made with the world would have drawn") {
    const auto lazy = arrivals(true, 6, 5);
    CHECK(lazy.size() == 500);
    CHECK(lazy == arrivals(false, 6, 5));
}

TEST_CASE("every pair of nodes is linked without a link being made for each") {
    Engine engine(1);
    Network network(engine);
    std::vector<NodeId> ids;
    for (int i = 0; i < 5000; ++i) ids.push_back(engine.add_node("s" + std::to_string(i)));
    network.link_every_pair(DelayModel::fixed(1_ms));
    CHECK(network.connected(ids[0], ids[4999]));
    CHECK(network.connected(ids[4321], ids[17]));
    CHECK_FALSE(network.connected(ids[3], ids[3]));

    SECTION("with nothing cut, every node is in one group") {
        const auto found = groups(network);
        REQUIRE(found.size() == 1);
        CHECK(found[0].size() == 5000);
    }
    SECTION("a node cut off both ways from every other is a group of its own, listed in node order") {
        for (int i = 0; i < 5000; ++i)
            if (i != 42) {
                network.cut(ids[42], ids[i]);
                network.cut(ids[i], ids[42]);
            }
        const auto found = groups(network);
        REQUIRE(found.size() == 2);
        CHECK(found[1] == std::vector<std::uint32_t>{42});
        CHECK(found[0].size() == 4999);
        CHECK(found[0].front() == 0);
        CHECK(std::is_sorted(found[0].begin(), found[0].end()));
    }
    SECTION("a link cut one way only is cut; a node reached around it stays in the group") {
        network.cut(ids[1], ids[2]);
        CHECK(groups(network).size() == 1);  // 1 and 2 reach each other through any third node
    }
}

TEST_CASE("the groups of a lazily linked mesh are those of the same mesh made up front") {
    const auto cut_some = [](bool every_pair) {
        Engine engine(1);
        Network network(engine);
        std::vector<NodeId> ids;
        for (int i = 0; i < 7; ++i) ids.push_back(engine.add_node("n" + std::to_string(i)));
        if (every_pair)
            network.link_every_pair(DelayModel::fixed(1_ms));
        else
            for (int a = 0; a < 7; ++a)
                for (int b = a + 1; b < 7; ++b) network.connect(ids[a], ids[b], DelayModel::fixed(1_ms));
        // {0, 2, 4} apart from {1, 3, 5, 6}; 6 then also apart from 1, 3 and 5.
        for (int a : {0, 2, 4})
            for (int b : {1, 3, 5, 6}) {
                network.cut(ids[a], ids[b]);
                network.cut(ids[b], ids[a]);
            }
        for (int b : {1, 3, 5}) network.cut(ids[6], ids[b]);
        return groups(network);
    };
    const auto lazy = cut_some(true);
    CHECK(lazy == std::vector<std::vector<std::uint32_t>>{{0, 2, 4}, {1, 3, 5}, {6}});
    CHECK(lazy == cut_some(false));
}

TEST_CASE("a world of 20,000 servers loads, and a server listed twice among them is refused at its place") {
    std::string servers;
    for (int i = 1; i <= 20000; ++i) servers += (i == 1 ? "\"s" : ", \"s") + std::to_string(i) + "\"";
    const std::string world = std::string(R"({"name": "many", "description": "many servers", "seed": 1,
"horizon": "5s", "network": {"delay": "1ms"}, "lock": {"store": "redis", "key": "k", "ttl": "30s"},
"job": {"name": "renewals", "at": "00:00", "customers": [41], "period": "2026-10", "work_per_customer": "1s"},
"designs": {"unfenced": {}}, "servers": [)");
    const auto many = write_temp("many_servers.json", world + servers + "]}");
    const auto listed = run_locksim("list '" + many + "'");
    CHECK(listed.exit_code == 0);
    CHECK(listed.out.find("many servers") != std::string::npos);

    const auto twice = write_temp("many_servers_twice.json", world + servers + ", \"s19999\"]}");
    const auto refused = run_locksim("run '" + twice + "'");
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find("/servers/20000: server \"s19999\" is listed twice") != std::string::npos);
}

TEST_CASE("the terminal timeline of a world of more nodes than fit side by side names each line's node") {
    std::string servers;
    for (int i = 1; i <= 40; ++i) servers += (i == 1 ? "\"server-" : ", \"server-") + std::to_string(i) + "\"";
    const auto file = write_temp("forty_servers.json", std::string(R"({"name": "forty", "description": "forty servers",
"seed": 1, "horizon": "1m", "network": {"delay": "1ms"},
"lock": {"store": "redis", "key": "k", "ttl": "30s", "retry": {"min": "1s", "max": "2s"}},
"job": {"name": "renewals", "at": "00:00", "customers": [41], "period": "2026-10", "work_per_customer": "4s"},
"faults": [{"partition": [["server-1"], ["lock-store"]], "at": "2s", "heal_after": "3s"}],
"designs": {"unfenced": {}}, "servers": [)") + servers + "]}");
    const auto ran = run_locksim("run '" + file + "'");
    REQUIRE(ran.exit_code == 0);
    CHECK(ran.out.find("(true time; a line per event, naming its node: too many nodes for a column each;") !=
          std::string::npos);
    CHECK(ran.out.find("time     │ node             │ what happened") != std::string::npos);
    CHECK(ran.out.find("│ server-40        │ job renewals starts") != std::string::npos);
    // The column is as wide as the longest node's name (payment-provider). The first
    // refusals name eight of the 39 clients and count the rest.
    CHECK(ran.out.find("│ lock-store       │ refuses 39 clients (server-2, server-3, server-4, server-5, server-6, "
                       "server-7, server-8, server-9, … and 31 more): already held") != std::string::npos);
    // An event of no node's, the partition, is the world's, not the first node's.
    CHECK(ran.out.find("  2.000s │ world            │ network partition: server-1 cut off from lock-store\n") !=
          std::string::npos);
    // A cut that leaves the network in one piece names who is cut off from whom, not all 44
    // nodes as one "group".
    CHECK(ran.out.find("groups now") == std::string::npos);
    CHECK(ran.out.find("  5.000s │ world            │ network healed: server-1 reaches lock-store again\n") !=
          std::string::npos);
    for (const auto& line : lines_of(ran.out)) CHECK(line.size() < 400);
}
