// Lock client libraries as profiles (models/stores/client_profiles.hpp): each renews,
// times its lease and answers a failed renewal as its source does, and a lock names one
// with "client". The sources are cited in each profile and in docs/models.md.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "models/stores/client_profiles.hpp"
#include "models/stores/store_registry.hpp"
#include "models/trace_kinds.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::design_named;
using locksim::testing::error_of;

namespace {

DesignOutcome run_only(const std::string& text, const std::string& design = "only") {
    const Scenario scenario = parse_scenario(text, "clients.json", metric_names());
    return design_named(run_scenario(scenario, scenario.seed), design);
}

// The times of the messages `node` sent whose label starts with `prefix`.
std::vector<Instant> sent_times(const DesignOutcome& run, const std::string& node, const std::string& prefix) {
    std::vector<Instant> times;
    for (const auto* event : events_of(run.trace, trace_kind::message_sent.name))
        if (run.trace.node_name(event->node) == node && event->text("label").starts_with(prefix))
            times.push_back(event->at);
    return times;
}

// One server holds a Consul lock with a 10 s session; `faults` as given.
std::string consul_holder(const std::string& faults) {
    return R"({
  "name": "consul-holder", "description": "api.Lock", "seed": 1, "horizon": "2m",
  "servers": ["server-1"], "network": { "delay": "1ms" },
  "lock": { "store": "consul", "key": "locks/job", "ttl": "10s", "request_timeout": "1s" },
  "job": { "name": "renewals", "at": "00:00", "customers": [1, 2, 3, 4, 5, 6], "period": "2026-10",
           "work_per_customer": "8s" },
  "faults": )" +
           faults +
           R"(,
  "designs": { "only": {} }
})";
}

}  // namespace

TEST_CASE("every client profile speaks to a store, cites its source, and each store's default speaks to it") {
    std::set<std::string_view> names;
    for (const ClientProfile& profile : all_client_profiles()) {
        CHECK(names.insert(profile.name).second);
        CHECK_FALSE(profile.speaks.empty());
        CHECK_FALSE(profile.source.empty());
        CHECK_FALSE(profile.library.empty());
        CHECK(find_client_profile(profile.name) == &profile);
    }
    for (const StoreEntry& store : all_stores()) {
        if (!store.takes("client")) continue;
        const auto speaking = client_profiles_of(store.kind);
        REQUIRE_FALSE(speaking.empty());
        CHECK(std::find(speaking.begin(), speaking.end(), &default_client_profile(store.kind)) != speaking.end());
    }
    CHECK(default_client_profile(StoreKind::consul).name == "consul-api");
    CHECK(default_client_profile(StoreKind::etcd).name == "etcd-clientv3");
    CHECK(default_client_profile(StoreKind::redis).name == "generic");
    CHECK(find_client_profile("jedis") == nullptr);
}

TEST_CASE("a lock names a client its store speaks to, or the error lists the store's clients") {
    const auto with_lock = [](const std::string& lock) {
        return R"({ "name": "x", "description": "x", "seed": 1, "horizon": "1m", "servers": ["server-1"],
  "network": { "delay": "1ms" }, "lock": )" +
               lock + R"(,
  "job": { "name": "renewals", "at": "00:00", "customers": [1], "period": "2026-10", "work_per_customer": "1s" },
  "designs": { "only": {} } })";
    };
    CHECK_THAT(error_of(with_lock(R"({ "store": "etcd", "key": "/l", "ttl": "30s", "client": "redisson" })")),
               Catch::EndsWith(": /lock/client: client \"redisson\" speaks to other stores; expected one of the "
                               "clients of store etcd: etcd-clientv3"));
    CHECK_THAT(error_of(with_lock(R"({ "store": "redis", "key": "l", "ttl": "30s", "client": "jedis" })")),
               Catch::EndsWith(": /lock/client: unknown client \"jedis\"; expected one of the clients of store "
                               "redis: generic, redis-py, redisson"));
    CHECK_THAT(error_of(with_lock(R"({ "store": "in-memory", "key": "l", "client": "generic" })")),
               Catch::Contains("/lock/client") && Catch::Contains("not yet a choice of libraries"));
    CHECK_THAT(error_of(with_lock(
                   R"({ "store": "redis", "key": "l", "ttl": "30s", "client": "redisson", "durations": "wall" })")),
               Catch::Contains("the redisson client times no lease of its own; leave \"durations\" out"));
    std::string margin = with_lock(R"({ "store": "redis", "key": "l", "ttl": "30s", "client": "redis-py" })");
    CHECK_THAT(error_of(margin.replace(margin.find(R"("work_per_customer")"), 0, R"("min_lease_left": "5s", )")),
               Catch::Contains("/job/min_lease_left: the redis-py client keeps no deadline of its own"));
}

TEST_CASE(
    "consul-api renews its session every TTL/2, and an overdue renewal on waking saves a session 2xTTL would end") {
    // Renewals at 5 s intervals after each answer (RenewPeriodic's ttl / 2).
    const auto quiet = run_only(consul_holder("[]"));
    const auto renewals = sent_times(quiet, "server-1", "PUT /v1/session/renew");
    REQUIRE(renewals.size() >= 3);
    CHECK(renewals[1] - renewals[0] > 5_s);
    CHECK(renewals[1] - renewals[0] < 5'010_ms);

    // Paused 19.9 s just after its first renewal (at about 5.005 s): its next renewal fell
    // due while it was frozen and goes out as it wakes, landing before the server's 2 x TTL.
    const auto saved = run_only(consul_holder(R"([{ "pause": "server-1", "at": "5100ms", "for": "19900ms" }])"));
    CHECK(events_of(saved.trace, trace_kind::lock_expired.name).empty());
    const auto woke_renewals = sent_times(saved, "server-1", "PUT /v1/session/renew");
    REQUIRE(woke_renewals.size() >= 2);
    CHECK(woke_renewals[1] == at(25_s));
    CHECK(saved.metrics.value("items_not_done") == 0);

    // 300 ms longer, and the renewal comes too late: the session is gone.
    const auto lost = run_only(consul_holder(R"([{ "pause": "server-1", "at": "5100ms", "for": "20200ms" }])"));
    CHECK(events_of(lost.trace, trace_kind::lock_expired.name).size() == 1);
}

TEST_CASE(
    "consul-api retries an unanswered renewal every second and stops a TTL after the last one, not telling the "
    "lock") {
    // Cut off from Consul from 6 s to 40 s: the renewal due at about 10 s gets no answer in
    // its 1 s, the next goes 1 s later, and so on until 10 s have passed since the renewal
    // at about 5 s went through. Only the watch on the key could end the lock, and its
    // answer waits in the cut: the holder believes (and charges) throughout.
    const auto run =
        run_only(consul_holder(R"([{ "partition": [["server-1"], ["consul"]], "at": "6s", "heal_after": "34s" }])"));
    const auto renewals = sent_times(run, "server-1", "PUT /v1/session/renew");
    REQUIRE(renewals.size() >= 4);
    CHECK(renewals[2] - renewals[1] == 2_s);  // 1 s without an answer, then 1 s of RenewPeriodic's wait
    const auto stopped = events_of(run.trace, trace_kind::renewal_stopped.name);
    REQUIRE(stopped.size() == 1);
    CHECK(stopped[0]->text("reason") == "no renewal went through for a whole TTL");
    CHECK(stopped[0]->at > at(15_s));
    CHECK(stopped[0]->at < at(17_s));
    const auto ended = events_of(run.trace, trace_kind::belief_ended.name);
    REQUIRE_FALSE(ended.empty());
    CHECK(ended[0]->at > at(40_s));
    CHECK(events_of(run.trace, trace_kind::lock_expired.name).size() == 1);  // at 25 s, 2 x TTL after 5 s
    CHECK(run.metrics.value("items_not_done") == 0);
}

TEST_CASE(
    "redisson keeps no deadline: a holder frozen past its TTL works on beside the next, and a refused renewal "
    "only stops its watchdog") {
    const auto scenario = [](const std::string& client) {
        return R"({
  "name": "redisson", "description": "a watchdog", "seed": 1, "horizon": "5m",
  "servers": ["server-1", "server-2"], "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "lock:job", "ttl": "10s", "client": ")" +
               client + R"(" },
  "job": { "name": "renewals", "at": "00:00", "customers": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "period": "2026-10",
           "work_per_customer": "1s" },
  "faults": [ { "pause": "server-1", "at": "2500ms", "for": "15s" } ],
  "designs": { "only": {} }
})";
    };
    // The careful generic client wakes, finishes the charge it was making, and at its next
    // check finds its lease ran out by its own clock.
    const auto generic = run_only(scenario("generic"));
    CHECK(generic.metrics.value("double_charges") == 1);
    CHECK(events_of(generic.trace, trace_kind::renewal_stopped.name).empty());

    const auto redisson = run_only(scenario("redisson"));
    CHECK(redisson.metrics.value("double_charges") > 1);
    const auto stopped = events_of(redisson.trace, trace_kind::renewal_stopped.name);
    REQUIRE(stopped.size() == 1);
    CHECK(redisson.trace.node_name(stopped[0]->node) == "server-1");
    CHECK(stopped[0]->text("reason") == "renewal refused: the value is no longer ours");
    // Server 1 never stops believing before its job ends and releases.
    for (const auto* ended : events_of(redisson.trace, trace_kind::belief_ended.name))
        if (redisson.trace.node_name(ended->node) == "server-1") CHECK(ended->text("reason") == "released");
}

TEST_CASE("etcd-clientv3 counts its deadline from the keep-alive's answer and retries an unanswered one after 500 ms") {
    const auto scenario = [](const std::string& faults) {
        return R"({
  "name": "etcd-client", "description": "clientv3", "seed": 1, "horizon": "2m",
  "servers": ["server-1"], "network": { "delay": "50ms" },
  "lock": { "store": "etcd", "key": "/locks/job", "ttl": "30s", "ensemble": 1, "request_timeout": "1s" },
  "job": { "name": "renewals", "at": "00:00", "customers": [1, 2, 3, 4, 5, 6], "period": "2026-10",
           "work_per_customer": "10s" },
  "faults": )" +
               faults +
               R"(,
  "designs": { "only": {} }
})";
    };
    const auto quiet = run_only(scenario("[]"));
    // Every deadline the holder holds is an answer's arrival plus the TTL: 100 ms (the round
    // trip) later than the request's send would make it.
    std::set<Instant> answered;
    for (const auto* event : events_of(quiet.trace, trace_kind::message_delivered.name))
        if (quiet.trace.node_name(event->node) == "server-1" && event->text("label") == "ok")
            answered.insert(event->at);
    const auto extended = events_of(quiet.trace, trace_kind::belief_extended.name);
    REQUIRE(extended.size() >= 3);
    for (const auto* event : extended) CHECK(answered.contains(event->instant("believed_until") - 30_s));

    // Cut off from 19 s to 25 s: the keep-alive due at 20.2 s gets no answer within its
    // 1 s, and the next follows 500 ms later, not a third of the TTL.
    const auto cut =
        run_only(scenario(R"([{ "partition": [["server-1"], ["etcd-1"]], "at": "19s", "heal_after": "6s" }])"));
    const auto keepalives = sent_times(cut, "server-1", "LeaseKeepAlive");
    std::vector<Duration> gaps;
    for (std::size_t i = 1; i < keepalives.size(); ++i) gaps.push_back(keepalives[i] - keepalives[i - 1]);
    CHECK(std::find(gaps.begin(), gaps.end(), 1'500_ms) != gaps.end());
    CHECK(cut.metrics.value("items_not_done") == 0);
}

TEST_CASE("redis-py never renews by itself: a job longer than the lock's timeout loses it at the store mid-run") {
    const auto scenario = [](const std::string& client) {
        return R"({
  "name": "redis-py", "description": "no renewal", "seed": 1, "horizon": "5m",
  "servers": ["server-1", "server-2"], "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "lock:job", "ttl": "10s", "client": ")" +
               client + R"(" },
  "job": { "name": "renewals", "at": "00:00", "customers": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
           "period": "2026-10", "work_per_customer": "1s" },
  "designs": { "only": {} }
})";
    };
    const auto generic = run_only(scenario("generic"));
    CHECK_FALSE(events_of(generic.trace, trace_kind::lock_renewed.name).empty());
    CHECK(events_of(generic.trace, trace_kind::lock_expired.name).empty());
    CHECK(generic.metrics.value("double_charges") == 0);

    const auto redis_py = run_only(scenario("redis-py"));
    CHECK(events_of(redis_py.trace, trace_kind::lock_renewed.name).empty());
    const auto expired = events_of(redis_py.trace, trace_kind::lock_expired.name);
    REQUIRE_FALSE(expired.empty());
    CHECK(expired[0]->at > at(10_s));
    CHECK(expired[0]->at < at(10'100_ms));
    CHECK(redis_py.metrics.value("double_charges") >= 1);
    // Its holder never stopped believing on its own: only its release ended the belief.
    for (const auto* ended : events_of(redis_py.trace, trace_kind::belief_ended.name))
        CHECK(ended->text("reason") == "released");

    // A "renew" the file gives is the code calling extend() on a timer.
    const Scenario renewing =
        parse_scenario(scenario("redis-py").replace(scenario("redis-py").find(R"("client")"), 0, R"("renew": "3s", )"),
                       "clients.json", metric_names());
    const auto extended = design_named(run_scenario(renewing, renewing.seed), "only");
    CHECK_FALSE(events_of(extended.trace, trace_kind::lock_renewed.name).empty());
    CHECK(extended.metrics.value("double_charges") == 0);
}

TEST_CASE(
    "kazoo keeps no deadline: a holder frozen past its session wakes believing until its ping hears the session "
    "expired") {
    const auto scenario = [](const std::string& client) {
        return R"({
  "name": "kazoo", "description": "a Lock recipe", "seed": 1, "horizon": "5m",
  "servers": ["server-1"], "network": { "delay": "1ms" },
  "lock": { "store": "zookeeper", "key": "/locks/job", "ttl": "10s", "ensemble": 1, "client": ")" +
               client + R"(" },
  "job": { "name": "renewals", "at": "00:00", "customers": [1, 2, 3], "period": "2026-10", "work_per_customer": "4s" },
  "faults": [ { "pause": "server-1", "at": "2s", "for": "15s" } ],
  "designs": { "only": {} }
})";
    };
    const auto ended_reason = [](const DesignOutcome& run) {
        const auto ended = events_of(run.trace, trace_kind::belief_ended.name);
        REQUIRE_FALSE(ended.empty());
        return std::string(ended[0]->text("reason"));
    };
    CHECK(ended_reason(run_only(scenario("generic"))) == "lease ran out by own clock");
    const auto kazoo = run_only(scenario("kazoo"));
    // On waking, the ping that fell due goes out at once and its answer says the session
    // expired: only then does the holder stop believing.
    CHECK(ended_reason(kazoo) == "its session expired (the client reports the connection LOST)");
    const auto ended = events_of(kazoo.trace, trace_kind::belief_ended.name);
    CHECK(ended[0]->at > at(17_s));
    CHECK(ended[0]->at < at(17'100_ms));
}

TEST_CASE(
    "curator pings a second before half its read timeout of idle, in whole milliseconds as the Java client counts") {
    const ClientProfile& curator = *find_client_profile("curator");
    CHECK(curator.heartbeat_interval(30_s) == 9_s);       // readTimeout 20 s: 10 s less a second
    CHECK(curator.heartbeat_interval(10_s) == 2'333_ms);  // readTimeout 6,666 ms
    CHECK(curator.heartbeat_interval(4_s) == 1_s);        // 1,333 ms less a second: once idle past a second
    CHECK(curator.heartbeat_interval(2_s) == 666_ms);     // half the read timeout, never idle a second
    CHECK(curator.believed_for(9_s) == 6_s);
    // The others ping a third of the session, and believe all of it.
    const ClientProfile& kazoo = *find_client_profile("kazoo");
    CHECK(kazoo.heartbeat_interval(30_s) == 10_s);
    CHECK(kazoo.believed_for(9_s) == 9_s);
}

TEST_CASE(
    "curator gives the lock up on waking from a pause past its read timeout, where kazoo and the generic client "
    "rightly keep it, as the session lives on") {
    const auto scenario = [](const std::string& client) {
        return R"({
  "name": "curator", "description": "an InterProcessMutex", "seed": 1, "horizon": "5m",
  "servers": ["server-1"], "network": { "delay": "1ms" },
  "lock": { "store": "zookeeper", "key": "/locks/job", "ttl": "10s", "ensemble": 1, "client": ")" +
               client + R"(" },
  "job": { "name": "renewals", "at": "00:00", "customers": [1, 2, 3, 4], "period": "2026-10", "work_per_customer": "4s" },
  "faults": [ { "pause": "server-1", "at": "4s", "for": "5500ms" } ],
  "designs": { "only": {} }
})";
    };
    const auto first_ended = [](const DesignOutcome& run) {
        const auto ended = events_of(run.trace, trace_kind::belief_ended.name);
        REQUIRE_FALSE(ended.empty());
        return ended[0];
    };
    // Its first ping 2,333 ms after the session opened (at 2 ms: the answer's 1 ms each
    // way), where kazoo's goes out a third of the session after it.
    const auto curator = run_only(scenario("curator"));
    const auto pings = sent_times(curator, "server-1", "ping session");
    REQUIRE_FALSE(pings.empty());
    CHECK(pings[0] == at(2'335_ms));
    const auto kazoo_pings = sent_times(run_only(scenario("kazoo")), "server-1", "ping session");
    REQUIRE_FALSE(kazoo_pings.empty());
    CHECK(kazoo_pings[0] == at(2_ms) + 10_s / 3);
    // Last heard at the answer to that ping; at 9.5 s, awake, more than 6,666 ms have
    // passed: SUSPENDED at once, the lock given up, though the session (last heard at
    // 2.3 s, 10 s long) lives until 12.3 s.
    const auto* ended = first_ended(curator);
    CHECK(ended->at == at(9'500_ms));
    CHECK(ended->text("reason") == "lease ran out by own clock");
    CHECK(events_of(curator.trace, trace_kind::session_expired.name).empty());
    // kazoo and the generic client keep believing, and rightly: their next ping finds the
    // session alive, and the job goes on to release the lock itself.
    for (const std::string client : {"kazoo", "generic"}) {
        INFO(client);
        const auto run = run_only(scenario(client));
        CHECK(first_ended(run)->text("reason") == "released");
        CHECK(run.metrics.value("double_charges") == 0);
    }
}

TEST_CASE(
    "redsync never extends by itself and takes 1% of the expiry off its validity, not the 2 ms more of the "
    "reference Redlock") {
    const auto scenario = [](const std::string& client) {
        return R"({
  "name": "redsync", "description": "Go's Redlock", "seed": 1, "horizon": "1m",
  "servers": ["server-1"], "network": { "delay": "1ms" },
  "lock": { "store": "redlock", "key": "lock:job", "ttl": "10s", "nodes": 3, "client": ")" +
               client + R"(" },
  "job": { "name": "renewals", "at": "00:00", "customers": [1, 2, 3, 4], "period": "2026-10", "work_per_customer": "4s" },
  "designs": { "only": {} }
})";
    };
    const auto believed_until = [](const DesignOutcome& run) {
        const auto held = events_of(run.trace, trace_kind::belief_acquired.name);
        REQUIRE(held.size() == 1);
        return held[0]->instant("believed_until");
    };
    // The job's run starts asking at 0: the reference algorithm believes 10 s - 100 ms - 2 ms.
    const auto generic = run_only(scenario("generic"));
    CHECK(believed_until(generic) == at(9'898_ms));
    CHECK_FALSE(events_of(generic.trace, trace_kind::lock_renewed.name).empty());
    const auto redsync = run_only(scenario("redsync"));
    CHECK(believed_until(redsync) == at(9'900_ms));
    CHECK(events_of(redsync.trace, trace_kind::lock_renewed.name).empty());
    // Never extended, the 16 s job outlives its lock: the holder stops at its own deadline.
    const auto ended = events_of(redsync.trace, trace_kind::belief_ended.name);
    REQUIRE_FALSE(ended.empty());
    CHECK(ended[0]->text("reason") == "lease ran out by own clock");
}

namespace {

// Two servers run a job under a session-level advisory lock in the billing database, whose
// idle_session_timeout is 3 s, with `client` (and `lock` fields added).
std::string advisory_world(const std::string& client, const std::string& more = "") {
    return R"({
  "name": "advisory", "description": "a Rails job", "seed": 1, "horizon": "2m",
  "servers": ["server-1", "server-2"], "network": { "delay": "1ms" },
  "lock": { "store": "db-advisory", "key": "payouts", "idle_session_timeout": "3s", "client": ")" +
           client + "\"" + more + R"( },
  "job": { "name": "payouts", "at": "00:00", "customers": [1, 2, 3], "period": "2026-10", "work_per_customer": "4s",
           "start_offsets": { "server-2": "10ms" } },
  "designs": { "only": {} }
})";
}

}  // namespace

TEST_CASE(
    "with-advisory-lock keeps no session alive: an idle session ends under the holder's block and the next server "
    "takes the lock, where the generic client's SELECT 1 keeps it") {
    const auto generic = run_only(advisory_world("generic"));
    CHECK(events_of(generic.trace, trace_kind::lock_expired.name).empty());
    CHECK(generic.metrics.value("overlapping_holders") == 0);
    CHECK_FALSE(sent_times(generic, "server-1", "SELECT 1").empty());

    const auto gem = run_only(advisory_world("with-advisory-lock"));
    CHECK(sent_times(gem, "server-1", "SELECT 1").empty());
    const auto expired = events_of(gem.trace, trace_kind::lock_expired.name);
    REQUIRE_FALSE(expired.empty());
    CHECK(expired[0]->at >= at(3_s));  // idle 3 s after its last statement
    CHECK(expired[0]->at < at(3'100_ms));
    // The block is never told: server 1 works on while server 2 holds the lock.
    CHECK(gem.metrics.value("overlapping_holders") >= 1);
    for (const auto* ended : events_of(gem.trace, trace_kind::belief_ended.name))
        if (gem.trace.node_name(ended->node) == "server-1") CHECK(ended->text("reason") == "released");
}

TEST_CASE(
    "with-advisory-lock tries again after 50 to 150 ms, its own sleep, and a lock that also gives retry is refused") {
    const auto gem = run_only(advisory_world("with-advisory-lock"));
    const auto tries = sent_times(gem, "server-2", "SELECT pg_try_advisory_lock");
    REQUIRE(tries.size() >= 10);
    std::set<Duration> gaps;
    for (std::size_t k = 1; k < tries.size(); ++k) {
        const Duration gap = tries[k] - tries[k - 1];
        CHECK(gap >= 52_ms);  // the sleep after the answer, 1 ms each way
        CHECK(gap <= 152_ms);
        gaps.insert(gap);
    }
    CHECK(gaps.size() > 1);  // drawn, not fixed
    CHECK_THAT(error_of(advisory_world("with-advisory-lock", R"(, "retry": { "min": "1s", "max": "2s" })")),
               Catch::EndsWith(": /lock/retry: the with-advisory-lock client sleeps 50ms to 150ms between tries, as "
                               "its source does; leave \"retry\" out, or name another client"));
    // A file without "client" keeps the generic client and its retry.
    CHECK(error_of(advisory_world("generic", R"(, "retry": { "min": "1s", "max": "2s" })")) == "no error");
}
