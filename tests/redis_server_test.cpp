// models/stores/redis_server.hpp: SET NX PX, compare-and-delete, DEL, compare-and-extend, and
// expiry by the Redis host's own wall clock.
#include <catch2/catch.hpp>

#include "tests/lock_client_fixture.hpp"
#include "tests/support.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/stores/redis_server.hpp"
#include "models/trace_kinds.hpp"
#include "sim/duration_text.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::lock_key;

namespace {

// One Redis node and two clients. Commands run as events on the Redis node, as they
// would when a request arrives there.
struct RedisWorld {
    explicit RedisWorld(ClockSettings redis_clock = {}, PersistenceSpec persistence = {})
        : engine(1),
          redis_node(engine.add_node("redis", redis_clock)),
          client_1(engine.add_node("server-1")),
          client_2(engine.add_node("server-2")),
          redis(Host(engine, redis_node), persistence) {}

    void on_redis(Duration when, std::function<void()> command) {
        engine.schedule_at(at(when), redis_node, std::move(command));
    }
    void on_world(Duration when, std::function<void()> fault) {
        engine.schedule_at(at(when), no_node, std::move(fault));
    }
    // The value of the key as a GET at `when` sees it.
    void get_at(Duration when, std::vector<std::optional<std::string>>& seen) {
        on_redis(when, [this, &seen] { seen.push_back(redis.get(lock_key)); });
    }
    void run() { engine.run(at(60_min)); }

    Engine engine;
    NodeId redis_node;
    NodeId client_1;
    NodeId client_2;
    RedisServer redis;
};

using Values = std::vector<std::optional<std::string>>;

}  // namespace

TEST_CASE("SET NX on a free key succeeds and traces lock.granted") {
    RedisWorld world;
    std::vector<bool> replies;
    world.on_redis(1_s,
                   [&] { replies.push_back(world.redis.set_if_absent(lock_key, "7f3a9c1e", 30_s, world.client_1)); });
    Values seen;
    world.get_at(2_s, seen);
    world.run();
    CHECK(replies == std::vector<bool>{true});
    CHECK(seen == Values{"7f3a9c1e"});

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 1);
    CHECK(granted[0]->at == at(1_s));
    CHECK(granted[0]->node == world.redis_node);
    CHECK(granted[0]->text("key") == lock_key);
    CHECK(granted[0]->text("value") == "7f3a9c1e");
    CHECK(granted[0]->node_ref("holder") == world.client_1);
    CHECK(granted[0]->duration("ttl") == 30_s);
    CHECK(granted[0]->instant("expires_at") == at(31_s));
}

TEST_CASE("SET NX on a held key is refused and traces lock.refused") {
    RedisWorld world;
    std::vector<bool> replies;
    world.on_redis(1_s, [&] { replies.push_back(world.redis.set_if_absent(lock_key, "first", 30_s, world.client_1)); });
    world.on_redis(2_s,
                   [&] { replies.push_back(world.redis.set_if_absent(lock_key, "second", 30_s, world.client_2)); });
    Values seen;
    world.get_at(3_s, seen);
    world.run();
    CHECK(replies == std::vector<bool>{true, false});
    CHECK(seen == Values{"first"});
    const auto refused = events_of(world.engine, trace_kind::lock_refused);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0]->at == at(2_s));
    CHECK(refused[0]->text("key") == lock_key);
    CHECK(events_of(world.engine, trace_kind::lock_granted).size() == 1);
}

TEST_CASE("delete_if_equals with another value deletes nothing") {
    RedisWorld world;
    std::vector<int> replies;
    world.on_redis(1_s, [&] { world.redis.set_if_absent(lock_key, "theirs", 30_s, world.client_2); });
    world.on_redis(2_s, [&] { replies.push_back(world.redis.delete_if_equals(lock_key, "mine", world.client_1)); });
    Values seen;
    world.get_at(3_s, seen);
    world.run();
    CHECK(replies == std::vector<int>{0});
    CHECK(seen == Values{"theirs"});
    CHECK(events_of(world.engine, trace_kind::lock_released).empty());
}

TEST_CASE("delete_if_equals with the key's value deletes it and traces a checked release") {
    RedisWorld world;
    std::vector<int> replies;
    world.on_redis(1_s, [&] { world.redis.set_if_absent(lock_key, "mine", 30_s, world.client_1); });
    world.on_redis(2_s, [&] { replies.push_back(world.redis.delete_if_equals(lock_key, "mine", world.client_1)); });
    world.on_redis(3_s, [&] { replies.push_back(world.redis.delete_if_equals(lock_key, "mine", world.client_1)); });
    Values seen;
    world.get_at(4_s, seen);
    world.run();
    CHECK(replies == std::vector<int>{1, 0});
    CHECK(seen == Values{std::nullopt});

    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(2_s));
    CHECK(released[0]->text("key") == lock_key);
    CHECK(released[0]->text("value") == "mine");
    CHECK(released[0]->node_ref("holder") == world.client_1);
    CHECK(released[0]->node_ref("by") == world.client_1);
    CHECK_FALSE(released[0]->flag("plain"));
}

TEST_CASE("a key deleted by its holder can be set again at once") {
    RedisWorld world;
    std::vector<bool> replies;
    world.on_redis(1_s, [&] { world.redis.set_if_absent(lock_key, "first", 30_s, world.client_1); });
    world.on_redis(2_s, [&] { world.redis.delete_if_equals(lock_key, "first", world.client_1); });
    world.on_redis(2_s,
                   [&] { replies.push_back(world.redis.set_if_absent(lock_key, "second", 30_s, world.client_2)); });
    world.run();
    CHECK(replies == std::vector<bool>{true});
}

TEST_CASE("plain DEL deletes someone else's key") {
    RedisWorld world;
    std::vector<int> replies;
    world.on_redis(1_s, [&] { world.redis.set_if_absent(lock_key, "theirs", 30_s, world.client_2); });
    world.on_redis(2_s, [&] { replies.push_back(world.redis.del(lock_key, world.client_1)); });
    world.on_redis(3_s, [&] { replies.push_back(world.redis.del(lock_key, world.client_1)); });
    Values seen;
    world.get_at(4_s, seen);
    world.run();
    CHECK(replies == std::vector<int>{1, 0});
    CHECK(seen == Values{std::nullopt});

    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->text("value") == "theirs");
    CHECK(released[0]->node_ref("holder") == world.client_2);
    CHECK(released[0]->node_ref("by") == world.client_1);
    CHECK(released[0]->flag("plain"));
}

TEST_CASE("extend_if_equals with the key's value resets its TTL from now") {
    RedisWorld world;
    std::vector<int> replies;
    world.on_redis(0_s, [&] { world.redis.set_if_absent(lock_key, "mine", 10_s, world.client_1); });
    world.on_redis(5_s, [&] { replies.push_back(world.redis.extend_if_equals(lock_key, "mine", 10_s)); });
    Values seen;
    world.get_at(12_s, seen);                // past the first deadline, before the new one
    world.get_at(15_s - Duration{1}, seen);  // the last nanosecond before the new deadline
    world.get_at(15_s, seen);
    world.run();
    CHECK(replies == std::vector<int>{1});
    CHECK(seen == Values{"mine", "mine", std::nullopt});

    const auto renewed = events_of(world.engine, trace_kind::lock_renewed);
    REQUIRE(renewed.size() == 1);
    CHECK(renewed[0]->at == at(5_s));
    CHECK(renewed[0]->instant("expires_at") == at(15_s));
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(15_s));
    CHECK(expired[0]->instant("expires_at") == at(15_s));
}

TEST_CASE("extend_if_equals with another value leaves the TTL alone") {
    RedisWorld world;
    std::vector<int> replies;
    world.on_redis(0_s, [&] { world.redis.set_if_absent(lock_key, "theirs", 10_s, world.client_2); });
    world.on_redis(5_s, [&] { replies.push_back(world.redis.extend_if_equals(lock_key, "mine", 10_s)); });
    world.on_redis(6_s, [&] { replies.push_back(world.redis.extend_if_equals("lock:other", "mine", 10_s)); });
    world.run();
    CHECK(replies == std::vector<int>{0, 0});
    CHECK(events_of(world.engine, trace_kind::lock_renewed).empty());
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(10_s));
}

TEST_CASE("a key expires at its TTL in true time when the Redis clock is perfect") {
    RedisWorld world;
    world.on_redis(1_s, [&] { world.redis.set_if_absent(lock_key, "mine", 30_s, world.client_1); });
    Values seen;
    world.get_at(31_s - Duration{1}, seen);
    world.get_at(31_s, seen);
    world.run();
    CHECK(seen == Values{"mine", std::nullopt});

    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(31_s));
    CHECK(expired[0]->node == world.redis_node);
    CHECK(expired[0]->text("key") == lock_key);
    CHECK(expired[0]->text("value") == "mine");
    CHECK(expired[0]->node_ref("holder") == world.client_1);
    CHECK(expired[0]->instant("expires_at") == at(31_s));
}

TEST_CASE("an expired key can be set by another client") {
    RedisWorld world;
    std::vector<bool> replies;
    world.on_redis(0_s, [&] { replies.push_back(world.redis.set_if_absent(lock_key, "first", 30_s, world.client_1)); });
    world.on_redis(30_s,
                   [&] { replies.push_back(world.redis.set_if_absent(lock_key, "second", 30_s, world.client_2)); });
    world.run();
    CHECK(replies == std::vector<bool>{true, true});
}

TEST_CASE("a forward step of the Redis host's wall clock past the deadline frees the key at the step") {
    RedisWorld world;
    std::vector<bool> replies;
    world.on_redis(0_s, [&] { replies.push_back(world.redis.set_if_absent(lock_key, "first", 30_s, world.client_1)); });
    world.on_world(10_s, [&] { world.engine.step_wall_clock(world.redis_node, 25_s); });
    world.on_redis(10_s,
                   [&] { replies.push_back(world.redis.set_if_absent(lock_key, "second", 30_s, world.client_2)); });
    world.run();
    CHECK(replies == std::vector<bool>{true, true});

    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 2);  // "first" at the step, "second" when its own TTL runs out
    CHECK(expired[0]->text("value") == "first");
    CHECK(expired[0]->at == at(10_s));                     // the step's true time...
    CHECK(expired[0]->instant("expires_at") == at(30_s));  // ...not the original deadline
    CHECK(expired[0]->wall == at(35_s));
    CHECK(expired[1]->text("value") == "second");
    CHECK(expired[1]->at == at(40_s));
}

TEST_CASE("a forward step expires the key by the active expiry alarm when nobody touches it") {
    RedisWorld world;
    world.on_redis(0_s, [&] { world.redis.set_if_absent(lock_key, "mine", 30_s, world.client_1); });
    world.on_world(10_s, [&] { world.engine.step_wall_clock(world.redis_node, 25_s); });
    world.run();
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(10_s));
}

TEST_CASE("a backward step of the Redis host's wall clock keeps the key longer") {
    RedisWorld world;
    world.on_redis(0_s, [&] { world.redis.set_if_absent(lock_key, "mine", 30_s, world.client_1); });
    world.on_world(10_s, [&] { world.engine.step_wall_clock(world.redis_node, -5_s); });
    Values seen;
    world.get_at(34_s, seen);
    world.run();
    CHECK(seen == Values{"mine"});
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(35_s));
}

TEST_CASE("a fast Redis clock expires a key early in true time") {
    // +100000 ppm: the Redis wall clock reads 11s at true 10s.
    RedisWorld world(ClockSettings{.drift_ppm = 100'000});
    world.on_redis(0_s, [&] { world.redis.set_if_absent(lock_key, "mine", 11_s, world.client_1); });
    world.run();
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(10_s));
}

TEST_CASE("the expiry alarm of an earlier SET does not expire a newer key") {
    RedisWorld world;
    world.on_redis(0_s, [&] { world.redis.set_if_absent(lock_key, "first", 10_s, world.client_1); });
    world.on_redis(5_s, [&] { world.redis.del(lock_key, world.client_1); });
    world.on_redis(6_s, [&] { world.redis.set_if_absent(lock_key, "second", 10_s, world.client_2); });
    Values seen;
    world.get_at(10_s, seen);
    world.run();
    CHECK(seen == Values{"second"});
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->text("value") == "second");
    CHECK(expired[0]->at == at(16_s));
}

TEST_CASE("a SET handled right after a Redis pause reports the old key's expiry first") {
    // 1. At 0 "first" is set with a 30s TTL.
    // 2. Redis is paused from 20s to 40s; a SET for "second" arrives at 25s and waits.
    // 3. At 40s the SET runs first (it fell due before the 30s expiry alarm): it must
    //    find the key expired, and the trace must say so before it says "granted".
    RedisWorld world;
    std::vector<bool> replies;
    world.on_redis(0_s, [&] { world.redis.set_if_absent(lock_key, "first", 30_s, world.client_1); });
    world.on_world(20_s, [&] { world.engine.pause(world.redis_node, 20_s, "fork"); });
    world.on_redis(25_s,
                   [&] { replies.push_back(world.redis.set_if_absent(lock_key, "second", 30_s, world.client_2)); });
    world.run();
    CHECK(replies == std::vector<bool>{true});

    std::vector<std::string> story;
    for (const auto& event : world.engine.trace().events())
        if (event.kind == trace_kind::lock_granted || event.kind == trace_kind::lock_expired)
            story.push_back(fmt::format("{} {} at {}", event.kind, event.text("value"), event.at));
    CHECK(story == std::vector<std::string>{
                       "lock.granted first at 0.000s",
                       "lock.expired first at 40.000s",
                       "lock.granted second at 40.000s",
                       "lock.expired second at 70.000s",
                   });
}

namespace {

// SET at 10.25s with a 60s TTL, crash (of the machine, unless said) at `crash_at`, restart
// 5s later; what a GET sees then.
std::optional<std::string> after_restart(PersistenceSpec persistence, Duration crash_at, Duration ttl = 60_s,
                                         CrashKind kind = CrashKind::machine) {
    RedisWorld world({}, persistence);
    world.on_redis(10_s + 250_ms, [&] { world.redis.set_if_absent(lock_key, "7f3a9c1e", ttl, world.client_1); });
    world.on_world(crash_at, [&] { world.engine.crash(world.redis_node, "test", kind); });
    world.on_world(crash_at + 5_s, [&] { world.engine.restart(world.redis_node); });
    std::vector<std::optional<std::string>> seen;
    // Scheduled as a world event: anything queued on the node before the crash is lost with it.
    world.on_world(crash_at + 6_s, [&] { seen.push_back(world.redis.get(lock_key)); });
    world.run();
    REQUIRE(seen.size() == 1);
    return seen[0];
}

}  // namespace

TEST_CASE("without persistence a restarted Redis has forgotten the lock") {
    CHECK(after_restart({PersistenceSpec::Mode::none, {}}, 20_s) == std::nullopt);
}

TEST_CASE("with appendfsync always a restarted Redis still holds the lock") {
    CHECK(after_restart({PersistenceSpec::Mode::append_always, {}}, 10_s + 251_ms) == "7f3a9c1e");
}

TEST_CASE("with appendfsync everysec a write in the last second before a machine crash is lost") {
    CHECK(after_restart({PersistenceSpec::Mode::append_everysec, {}}, 10_s + 500_ms) == std::nullopt);
    CHECK(after_restart({PersistenceSpec::Mode::append_everysec, {}}, 11_s + 500_ms) == "7f3a9c1e");
}

TEST_CASE("with appendfsync everysec a killed Redis process keeps even the last write: the kernel had it") {
    const PersistenceSpec everysec{PersistenceSpec::Mode::append_everysec, {}};
    CHECK(after_restart(everysec, 10_s + 251_ms, 60_s, CrashKind::process) == "7f3a9c1e");
    // Without the append-only file there is nothing on disk for the kernel to keep.
    CHECK(after_restart({PersistenceSpec::Mode::none, {}}, 10_s + 251_ms, 60_s, CrashKind::process) == std::nullopt);
    // A snapshot is written only when it is taken.
    CHECK(after_restart({PersistenceSpec::Mode::snapshot, 30_s}, 25_s, 60_s, CrashKind::process) == std::nullopt);
}

TEST_CASE("with RDB snapshots a restart loads the last snapshot, not the last write") {
    CHECK(after_restart({PersistenceSpec::Mode::snapshot, 30_s}, 25_s) ==
          std::nullopt);  // snapshot at 30s not yet taken
    CHECK(after_restart({PersistenceSpec::Mode::snapshot, 30_s}, 35_s) == "7f3a9c1e");
}

TEST_CASE("a persisted key whose expiry passed while Redis was down is gone after the restart") {
    CHECK(after_restart({PersistenceSpec::Mode::append_always, {}}, 20_s, 12_s) == std::nullopt);
}

// --- a token counter beside the lock (the lock script's INCR) -----------------------

TEST_CASE("the lock script's counter gives each grant the next token, and nothing to a refused SET") {
    RedisWorld world;
    std::vector<std::optional<std::int64_t>> tokens;
    const std::string counter = "lock:renewals:token";
    world.on_redis(1_s, [&] {
        tokens.push_back(world.redis.set_if_absent_with_token(lock_key, "first", 30_s, counter, world.client_1));
    });
    world.on_redis(2_s, [&] {
        tokens.push_back(world.redis.set_if_absent_with_token(lock_key, "second", 30_s, counter, world.client_2));
    });
    world.on_redis(3_s, [&] { world.redis.delete_if_equals(lock_key, "first", world.client_1); });
    world.on_redis(4_s, [&] {
        tokens.push_back(world.redis.set_if_absent_with_token(lock_key, "second", 30_s, counter, world.client_2));
    });
    world.run();
    REQUIRE(tokens.size() == 3);
    CHECK(tokens[0] == 1);
    CHECK(tokens[1] == std::nullopt);
    CHECK(tokens[2] == 2);  // the refused SET did not INCR
    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 2);
    CHECK(granted[0]->integer("token") == 1);
    CHECK(granted[1]->integer("token") == 2);
    CHECK(granted[1]->node_ref("holder") == world.client_2);
}

namespace {

// The tokens of a grant at 1s (its lease `first_ttl` long), and of one after a crash at 5s
// and a restart at 6s.
std::vector<std::optional<std::int64_t>> tokens_across_restart(PersistenceSpec persistence, Duration first_ttl) {
    RedisWorld world({}, persistence);
    std::vector<std::optional<std::int64_t>> tokens;
    const std::string counter = "lock:renewals:token";
    world.on_redis(1_s, [&] {
        tokens.push_back(world.redis.set_if_absent_with_token(lock_key, "first", first_ttl, counter, world.client_1));
    });
    world.on_world(5_s, [&] { world.engine.crash(world.redis_node, "test"); });
    world.on_world(6_s, [&] { world.engine.restart(world.redis_node); });
    // A world event: anything queued on the node before the crash is lost with it.
    world.on_world(7_s, [&] {
        tokens.push_back(world.redis.set_if_absent_with_token(lock_key, "second", 10_s, counter, world.client_2));
    });
    world.run();
    return tokens;
}

}  // namespace

TEST_CASE("a Redis restarted without persistence counts tokens from 1 again") {
    // The lock and its counter were lost together.
    CHECK(tokens_across_restart({}, 10_s) == std::vector<std::optional<std::int64_t>>{1, 1});
}

TEST_CASE("with appendfsync always the counter survives a restart and tokens keep rising") {
    // The lock itself expired (1s) before the crash; the counter does not expire.
    CHECK(tokens_across_restart(PersistenceSpec{PersistenceSpec::Mode::append_always, {}}, 1_s) ==
          std::vector<std::optional<std::int64_t>>{1, 2});
}
