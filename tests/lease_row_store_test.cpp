// models/stores/lease_row_store.hpp: a lease kept as a database row whose fence rises with
// every grant, run out only by the database host's own wall clock.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/stores/lease_row_store.hpp"
#include "models/trace_kinds.hpp"
#include "sim/duration_text.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

const std::string lease = "renewals";
constexpr std::int64_t first_token = 33;

// The lock-store database and two job servers. Statements run as events on the
// database node, as they would when a request arrives there.
struct LeaseWorld {
    explicit LeaseWorld(ClockSettings database_clock = {})
        : engine(1),
          database(engine.add_node("lock-store", database_clock)),
          server_1(engine.add_node("server-1")),
          server_2(engine.add_node("server-2")),
          store(Host(engine, database), first_token) {}

    void on_database(Duration when, std::function<void()> statement) {
        engine.schedule_at(at(when), database, std::move(statement));
    }
    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    // A claim at `when` whose result is appended to `results`.
    void claim_at(Duration when, const std::string& owner, NodeId client, Duration ttl,
                  std::vector<std::optional<std::int64_t>>& results) {
        on_database(
            when, [this, owner, client, ttl, &results] { results.push_back(store.claim(lease, owner, ttl, client)); });
    }
    void run() { engine.run(at(60_min)); }

    Engine engine;
    NodeId database;
    NodeId server_1;
    NodeId server_2;
    LeaseRowStore store;
};

using Claims = std::vector<std::optional<std::int64_t>>;

}  // namespace

TEST_CASE("the first claim gets the first token and traces lock.granted") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(1_s, "server-1", world.server_1, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33});

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at == at(1_s));
    CHECK(granted[0]->node == world.database);
    CHECK(granted[0]->text("key") == lease);
    CHECK(granted[0]->text("value") == "server-1");
    CHECK(granted[0]->integer("token") == 33);
    CHECK(granted[0]->node_ref("holder") == world.server_1);
    CHECK(granted[0]->duration("ttl") == 30_s);
    CHECK(granted[0]->instant("expires_at") == at(31_s));
}

TEST_CASE("a claim while the lease is held gets nothing and traces lock.refused") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.claim_at(10_s, "server-2", world.server_2, 30_s, claims);
    world.claim_at(30_s - Duration{1}, "server-2", world.server_2, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33, std::nullopt, std::nullopt});
    const auto refused = events_of(world.engine, trace_kind::lock_refused);
    REQUIRE(refused.size() == 2);
    CHECK(refused[0]->at == at(10_s));
    CHECK(refused[0]->text("key") == lease);
}

TEST_CASE("the next claim after expiry gets the next token") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.claim_at(30_s, "server-2", world.server_2, 30_s, claims);
    world.claim_at(60_s, "server-1", world.server_1, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33, 34, 35});
}

TEST_CASE("a lease that runs out untouched is traced as lock.expired at its deadline") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.run();
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(30_s));
    CHECK(expired[0]->node == world.database);
    CHECK(expired[0]->text("key") == lease);
    CHECK(expired[0]->integer("token") == 33);
    CHECK(expired[0]->text("value") == "server-1");
    CHECK(expired[0]->node_ref("holder") == world.server_1);
    CHECK(expired[0]->instant("expires_at") == at(30_s));
}

TEST_CASE("tokens only rise, through expiry and release alike") {
    LeaseWorld world;
    Claims claims;
    std::vector<int> released;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_database(5_s,
                      [&] { released.push_back(world.store.release(lease, "server-1", 33, true, world.server_1)); });
    world.claim_at(5_s, "server-2", world.server_2, 30_s, claims);
    world.claim_at(40_s, "server-1", world.server_1, 30_s, claims);
    world.run();
    CHECK(released == std::vector<int>{1});
    CHECK(claims == Claims{33, 34, 35});
}

TEST_CASE("extend succeeds only for the matching owner and fence") {
    LeaseWorld world;
    Claims claims;
    std::vector<int> extended;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_database(10_s, [&] { extended.push_back(world.store.extend(lease, "server-2", 33, 30_s)); });
    world.on_database(10_s, [&] { extended.push_back(world.store.extend(lease, "server-1", 32, 30_s)); });
    world.on_database(10_s, [&] { extended.push_back(world.store.extend("other", "server-1", 33, 30_s)); });
    world.on_database(10_s, [&] { extended.push_back(world.store.extend(lease, "server-1", 33, 30_s)); });
    // Past the first deadline (30s) but before the extended one (40s): still held.
    world.claim_at(35_s, "server-2", world.server_2, 30_s, claims);
    world.claim_at(40_s, "server-2", world.server_2, 30_s, claims);
    world.run();
    CHECK(extended == std::vector<int>{0, 0, 0, 1});
    CHECK(claims == Claims{33, std::nullopt, 34});

    const auto renewed = events_of(world.engine, trace_kind::lock_renewed);
    REQUIRE(renewed.size() == 1);
    CHECK(renewed[0]->at == at(10_s));
    CHECK(renewed[0]->integer("token") == 33);
    CHECK(renewed[0]->instant("expires_at") == at(40_s));
}

TEST_CASE("an extended lease is reported as expired once, at its extended deadline") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_database(10_s, [&] { world.store.extend(lease, "server-1", 33, 30_s); });
    world.run();
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(40_s));
    CHECK(expired[0]->integer("token") == 33);
    CHECK(expired[0]->instant("expires_at") == at(40_s));
}

TEST_CASE("a holder whose lease was claimed by another cannot extend the new lease") {
    LeaseWorld world;
    Claims claims;
    std::vector<int> extended;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.claim_at(30_s, "server-2", world.server_2, 30_s, claims);
    world.on_database(31_s, [&] { extended.push_back(world.store.extend(lease, "server-1", 33, 30_s)); });
    world.run();
    CHECK(claims == Claims{33, 34});
    CHECK(extended == std::vector<int>{0});
}

TEST_CASE("a checked release ends the lease only for the matching owner and fence") {
    LeaseWorld world;
    Claims claims;
    std::vector<int> released;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_database(5_s,
                      [&] { released.push_back(world.store.release(lease, "server-2", 33, true, world.server_2)); });
    world.on_database(5_s,
                      [&] { released.push_back(world.store.release(lease, "server-1", 32, true, world.server_1)); });
    world.claim_at(6_s, "server-2", world.server_2, 30_s, claims);
    world.on_database(7_s,
                      [&] { released.push_back(world.store.release(lease, "server-1", 33, true, world.server_1)); });
    world.claim_at(7_s, "server-2", world.server_2, 30_s, claims);
    world.run();
    CHECK(released == std::vector<int>{0, 0, 1});
    CHECK(claims == Claims{33, std::nullopt, 34});

    const auto events = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(events.size() == 1);
    CHECK(events[0]->at == at(7_s));
    CHECK(events[0]->text("value") == "server-1");
    CHECK(events[0]->integer("token") == 33);
    CHECK(events[0]->node_ref("holder") == world.server_1);
    CHECK(events[0]->node_ref("by") == world.server_1);
    CHECK_FALSE(events[0]->flag("plain"));
}

TEST_CASE("a plain release ends whoever's lease it is") {
    LeaseWorld world;
    Claims claims;
    std::vector<int> released;
    world.claim_at(0_s, "server-2", world.server_2, 30_s, claims);
    world.on_database(5_s,
                      [&] { released.push_back(world.store.release(lease, "server-1", 0, false, world.server_1)); });
    world.claim_at(6_s, "server-1", world.server_1, 30_s, claims);
    world.run();
    CHECK(released == std::vector<int>{1});
    CHECK(claims == Claims{33, 34});

    const auto events = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(events.size() == 1);
    CHECK(events[0]->text("value") == "server-2");
    CHECK(events[0]->node_ref("holder") == world.server_2);
    CHECK(events[0]->node_ref("by") == world.server_1);
    CHECK(events[0]->flag("plain"));
}

TEST_CASE("a released lease is not reported as expired") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_database(5_s, [&] { world.store.release(lease, "server-1", 33, true, world.server_1); });
    world.run();
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());
}

TEST_CASE("releasing a lease that already ran out changes nothing") {
    LeaseWorld world;
    Claims claims;
    std::vector<int> released;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_database(31_s,
                      [&] { released.push_back(world.store.release(lease, "server-1", 33, true, world.server_1)); });
    world.on_database(32_s,
                      [&] { released.push_back(world.store.release(lease, "server-1", 33, false, world.server_1)); });
    world.run();
    CHECK(released == std::vector<int>{0, 0});
    CHECK(events_of(world.engine, trace_kind::lock_released).empty());
}

TEST_CASE("a forward step of the database's wall clock runs the lease out at the step") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_world(10_s, [&] { world.engine.step_wall_clock(world.database, 25_s); });
    world.claim_at(11_s, "server-2", world.server_2, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33, 34});
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE_FALSE(expired.empty());
    CHECK(expired[0]->integer("token") == 33);
    CHECK(expired[0]->at == at(10_s));
    CHECK(expired[0]->wall == at(35_s));
}

TEST_CASE("a backward step of the database's wall clock keeps the lease longer") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_world(10_s, [&] { world.engine.step_wall_clock(world.database, -5_s); });
    world.claim_at(34_s, "server-2", world.server_2, 30_s, claims);
    world.claim_at(35_s, "server-2", world.server_2, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33, std::nullopt, 34});
}

TEST_CASE("the clocks of the claiming servers do not decide expiry") {
    LeaseWorld world;
    // A server whose wall clock is an hour ahead still cannot claim before the database's
    // clock says the lease ran out.
    const NodeId fast = world.engine.add_node("server-3", ClockSettings{.offset = 60_min});
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.claim_at(20_s, "server-3", fast, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33, std::nullopt});
}

TEST_CASE("a claim at the instant the lease runs out reports the old lease's expiry first") {
    // The claim's event was queued before the expiry alarm, so it runs first at 30s. It
    // is granted token 34 (lease_until <= now), and the trace must still show 33 ending.
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.claim_at(30_s, "server-2", world.server_2, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33, 34});

    std::vector<std::string> story;
    for (const auto& event : world.engine.trace().events())
        if (event.kind == trace_kind::lock_granted || event.kind == trace_kind::lock_expired)
            story.push_back(fmt::format("{} {} at {}", event.kind, event.integer("token"), event.at));
    CHECK(story == std::vector<std::string>{
                       "lock.granted 33 at 0.000s",
                       "lock.expired 33 at 30.000s",
                       "lock.granted 34 at 30.000s",
                       "lock.expired 34 at 60.000s",
                   });
}

TEST_CASE("a claim handled right after a database pause reports the old lease's expiry first") {
    // 1. At 0 server-1 claims the lease (token 33) until 30s.
    // 2. The database is paused from 20s to 40s; server-2's claim arrives at 25s and waits.
    // 3. At 40s the claim runs first (it fell due before the 30s expiry alarm) and is
    //    granted token 34. The trace must still say that lease 33 ran out before 34 was
    //    granted; otherwise a checker reading it sees two holders at once.
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_world(20_s, [&] { world.engine.pause(world.database, 20_s, "vacuum"); });
    world.claim_at(25_s, "server-2", world.server_2, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33, 34});

    std::vector<std::string> story;
    for (const auto& event : world.engine.trace().events())
        if (event.kind == trace_kind::lock_granted || event.kind == trace_kind::lock_expired)
            story.push_back(fmt::format("{} {} at {}", event.kind, event.integer("token"), event.at));
    CHECK(story == std::vector<std::string>{
                       "lock.granted 33 at 0.000s",
                       "lock.expired 33 at 40.000s",
                       "lock.granted 34 at 40.000s",
                       "lock.expired 34 at 70.000s",
                   });
}

TEST_CASE("a claim in the same instant as a forward step reports the old lease's expiry first") {
    LeaseWorld world;
    Claims claims;
    world.claim_at(0_s, "server-1", world.server_1, 30_s, claims);
    world.on_world(10_s, [&] { world.engine.step_wall_clock(world.database, 25_s); });
    world.claim_at(10_s, "server-2", world.server_2, 30_s, claims);
    world.run();
    CHECK(claims == Claims{33, 34});

    std::vector<std::string> story;
    for (const auto& event : world.engine.trace().events())
        if (event.kind == trace_kind::lock_granted || event.kind == trace_kind::lock_expired)
            story.push_back(fmt::format("{} {} at {}", event.kind, event.integer("token"), event.at));
    CHECK(story == std::vector<std::string>{
                       "lock.granted 33 at 0.000s", "lock.expired 33 at 10.000s", "lock.granted 34 at 10.000s",
                       "lock.expired 34 at 40.000s",  // 65s on the stepped clock
                   });
}
