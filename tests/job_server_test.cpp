// models/job_server.hpp: the nightly renewals job on one or more servers, against a real
// billing database and payment provider on their own nodes, with or without a Redis lock.
#include <catch2/catch.hpp>

#include "tests/lock_client_fixture.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/billing_database.hpp"
#include "models/job_server.hpp"
#include "models/lock_client.hpp"
#include "models/lock_holder.hpp"
#include "models/payment_provider.hpp"
#include "models/stores/store_deployment.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world_spec.hpp"
#include "sim/engine.hpp"
#include "sim/host.hpp"
#include "sim/network.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::redis_lock;

namespace {

const std::string job_period = "2026-10";

// Starts at 1s by each server's wall clock; 2s of work per invoice.
JobSpec renewals_job(std::vector<std::int64_t> customers) {
    JobSpec job;
    job.kind = JobKind::renewals;
    job.name = "renewals";
    job.starts_at = at(1_s);
    job.customers = std::move(customers);
    job.period = job_period;
    job.work_per_customer = DurationDistribution::fixed(2_s);
    return job;
}

// What differs between the worlds of these tests.
struct Setup {
    JobSpec job;
    std::size_t servers = 1;
    std::optional<LockSpec> lock;  // none: the job takes no lock
    std::optional<std::int64_t> bad_record_on_server_1;
    std::map<std::string, ClockSettings> clocks;
};

// server-1…N, then redis (with a lock), billing and provider, every pair 1ms apart each
// way; wired the way models/world/world.cpp builds its servers.
struct JobWorld {
    explicit JobWorld(Setup setup) : engine(1), network(engine) {
        for (std::size_t i = 1; i <= setup.servers; ++i) world.servers.push_back(fmt::format("server-{}", i));
        if (setup.lock) world.store_nodes = {"redis"};
        world.billing_node = "billing";
        world.provider_node = "provider";
        world.job = setup.job;
        if (setup.lock) world.lock = *setup.lock;

        std::vector<std::string> names = world.servers;
        names.insert(names.end(), world.store_nodes.begin(), world.store_nodes.end());
        names.insert(names.end(), {"billing", "provider"});
        for (const auto& name : names)
            engine.add_node(name, setup.clocks.contains(name) ? setup.clocks.at(name) : ClockSettings{});
        for (std::size_t a = 0; a < names.size(); ++a)
            for (std::size_t b = a + 1; b < names.size(); ++b)
                network.connect(node(names[a]), node(names[b]), DelayModel::fixed(1_ms));

        billing = std::make_unique<BillingDatabase>(Host(engine, node("billing")), world.job.customers,
                                                    std::vector<std::string>{job_period});
        provider = std::make_unique<PaymentProvider>(Host(engine, node("provider")), ProviderSpec{});
        if (setup.lock) deployment = deploy_redis(testing::store_context(engine, network, world));
        const JobResources resources{node("billing"), billing.get(), node("provider"), provider.get()};
        finished.assign(world.servers.size(), 0);
        for (std::size_t index = 0; index < world.servers.size(); ++index) {
            const Host host(engine, node(world.servers[index]));
            LockHolder* holder = nullptr;
            if (deployment) {
                auto& client = clients.emplace_back(deployment->client_for(host));
                holder = holders.emplace_back(std::make_unique<LockHolder>(host, *client, world.lock)).get();
            }
            const std::optional<std::int64_t> bad_record =
                index == 0 ? setup.bad_record_on_server_1 : std::optional<std::int64_t>();
            auto& server = servers.emplace_back(std::make_unique<JobServer>(host, network, holder, resources,
                                                                            ServerPlace{index, world.servers.size()},
                                                                            world.job, world.protection, bad_record));
            host.spawn(server->run_nightly_job([this, index] { ++finished[index]; }));
        }
    }

    NodeId node(const std::string& name) const { return *engine.trace().find_node(name); }
    void run(Duration horizon = 120_s) { engine.run(at(horizon)); }

    // Charges at the provider as (customer, the server that asked), in trace order.
    std::vector<std::pair<std::int64_t, NodeId>> charges() const {
        std::vector<std::pair<std::int64_t, NodeId>> found;
        for (const auto* event : events_of(engine, trace_kind::provider_charged))
            found.emplace_back(event->integer("customer"), event->node_ref("by"));
        return found;
    }
    // The customers `kind` was recorded for, in trace order.
    std::vector<std::int64_t> customers_of(std::string_view kind) const {
        std::vector<std::int64_t> found;
        for (const auto* event : events_of(engine, kind)) found.push_back(event->integer("customer"));
        return found;
    }
    const TraceEvent* finished_event(const std::string& server) const {
        const TraceEvent* found = nullptr;
        for (const auto* event : events_of(engine, trace_kind::job_finished))
            if (event->node == node(server)) {
                REQUIRE(found == nullptr);  // one ending per server
                found = event;
            }
        return found;
    }
    std::vector<const TraceEvent*> on(std::string_view kind, const std::string& server) const {
        std::vector<const TraceEvent*> found;
        for (const auto* event : events_of(engine, kind))
            if (event->node == node(server)) found.push_back(event);
        return found;
    }

    Engine engine;
    Network network;
    WorldSpec world;
    std::unique_ptr<BillingDatabase> billing;
    std::unique_ptr<PaymentProvider> provider;
    std::unique_ptr<StoreDeployment> deployment;
    std::vector<std::unique_ptr<LockStoreClient>> clients;
    std::vector<std::unique_ptr<LockHolder>> holders;
    std::vector<std::unique_ptr<JobServer>> servers;
    std::vector<int> finished;  // how often each server's `finished` was called
};

}  // namespace

TEST_CASE("without a lock, one server charges every customer once, records each charged and ends done") {
    // Customer n starts at 1s + (n-1) * 2.006s: read (2ms), 2s of work, charge (2ms),
    // record (2ms). The provider sees the charges at 3.003s, 5.009s and 7.015s.
    JobWorld world(Setup{.job = renewals_job({1, 2, 3})});
    world.run();
    const NodeId server_1 = world.node("server-1");
    CHECK(world.charges() == std::vector<std::pair<std::int64_t, NodeId>>{{1, server_1}, {2, server_1}, {3, server_1}});
    const auto charged = events_of(world.engine, trace_kind::provider_charged);
    REQUIRE(charged.size() == 3);
    const std::vector<Instant> charged_at{at(3_s + 3_ms), at(5_s + 9_ms), at(7_s + 15_ms)};
    for (std::size_t i = 0; i < charged.size(); ++i) {
        INFO("charge " << i + 1);
        CHECK(charged[i]->at == charged_at[i]);
        CHECK(charged[i]->integer("charge") == static_cast<std::int64_t>(i + 1));
        CHECK(charged[i]->text("period") == job_period);
        CHECK_FALSE(charged[i]->has("key"));  // no idempotency key in this design
    }
    CHECK(world.customers_of(trace_kind::db_read) == std::vector<std::int64_t>{1, 2, 3});
    CHECK(world.customers_of(trace_kind::job_preparing) == std::vector<std::int64_t>{1, 2, 3});
    CHECK(events_of(world.engine, trace_kind::job_customer_skipped).empty());
    const auto written = events_of(world.engine, trace_kind::db_write);
    REQUIRE(written.size() == 3);
    for (const auto* write : written) {
        CHECK(write->text("status") == "charged");
        CHECK(write->integer("rows") == 1);
        CHECK(write->node_ref("client") == server_1);
        CHECK_FALSE(write->has("token"));
    }

    const auto started = events_of(world.engine, trace_kind::job_started);
    REQUIRE(started.size() == 1);
    CHECK(started[0]->at == at(1_s));
    const TraceEvent* finished = world.finished_event("server-1");
    REQUIRE(finished != nullptr);
    CHECK(finished->at == at(7_s + 18_ms));
    CHECK(finished->text("outcome") == "done");
    CHECK(world.finished == std::vector<int>{1});
    for (const std::int64_t customer : {1, 2, 3})
        CHECK(world.billing->read(customer, job_period).status == RenewalStatus::charged);
}

TEST_CASE("with hash assignment, server i of 3 handles only the customers whose id mod 3 is i, negative ids too") {
    // The mathematical modulo: -4 -> 2, -3 -> 0, -2 -> 1, -1 -> 2 (C++'s % gives -1 and -2).
    JobSpec job = renewals_job({-4, -3, -2, -1, 0, 1, 2, 3, 4, 5});
    job.assignment = Assignment::hash;
    JobWorld world(Setup{.job = job, .servers = 3});
    world.run();
    const std::map<std::string, std::vector<std::int64_t>> owned{
        {"server-1", {-3, 0, 3}}, {"server-2", {-2, 1, 4}}, {"server-3", {-4, -1, 2, 5}}};
    for (const auto& [server, customers] : owned) {
        INFO(server);
        std::vector<std::int64_t> charged;
        for (const auto& [customer, by] : world.charges())
            if (by == world.node(server)) charged.push_back(customer);
        CHECK(charged == customers);
        // It never even read another server's customers.
        std::vector<std::int64_t> asked;
        for (const auto* sent : world.on(trace_kind::message_sent, server))
            if (sent->has("customer") && sent->text("label").starts_with("SELECT"))
                asked.push_back(sent->integer("customer"));
        CHECK(asked == customers);
        const TraceEvent* finished = world.finished_event(server);
        REQUIRE(finished != nullptr);
        CHECK(finished->text("outcome") == "done");
    }
    CHECK(world.charges().size() == 10);
    CHECK(world.finished == std::vector<int>{1, 1, 1});
}

TEST_CASE("a bad record fails the job at that customer, after charging the customers before it and none after") {
    // Customer 1 is done at 3.006s; taking up customer 2's record throws, before anything is sent.
    JobWorld world(Setup{.job = renewals_job({1, 2, 3}), .bad_record_on_server_1 = 2});
    world.run();
    CHECK(world.charges() == std::vector<std::pair<std::int64_t, NodeId>>{{1, world.node("server-1")}});
    CHECK(world.customers_of(trace_kind::db_read) == std::vector<std::int64_t>{1});
    CHECK(world.customers_of(trace_kind::job_preparing) == std::vector<std::int64_t>{1});
    const TraceEvent* finished = world.finished_event("server-1");
    REQUIRE(finished != nullptr);
    CHECK(finished->at == at(3_s + 6_ms));
    CHECK(finished->text("outcome") == "failed: an error while handling customer 2");
    CHECK(world.finished == std::vector<int>{1});
    CHECK(world.billing->read(1, job_period).status == RenewalStatus::charged);
    CHECK(world.billing->read(2, job_period).status == RenewalStatus::due);
    CHECK(world.billing->read(3, job_period).status == RenewalStatus::due);
}

TEST_CASE("with a lock and release_in_finally false, the error abandons the lock: no release, no renewal, it expires") {
    // 1. server-1 gets the lock at 1.002s (granted at 1.001s), believing it until 31s.
    // 2. It charges customer 1 and is done with it at 3.008s; customer 2's record throws.
    // 3. The finally path is skipped: the holder stops believing, the renewal due at
    //    11.002s finds no belief, and Redis lets the key go at 31.001s, its TTL.
    JobSpec job = renewals_job({1, 2, 3});
    job.release_in_finally = false;
    JobWorld world(Setup{.job = job, .lock = redis_lock(), .bad_record_on_server_1 = 2});
    world.run();
    CHECK(world.charges() == std::vector<std::pair<std::int64_t, NodeId>>{{1, world.node("server-1")}});

    const auto ended = events_of(world.engine, trace_kind::belief_ended);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == at(3_s + 8_ms));
    CHECK(ended[0]->text("reason") == "abandoned: an error skipped the release");
    CHECK(events_of(world.engine, trace_kind::lock_released).empty());
    CHECK(events_of(world.engine, trace_kind::lock_renewed).empty());
    const auto expired = events_of(world.engine, trace_kind::lock_expired);
    REQUIRE(expired.size() == 1);
    CHECK(expired[0]->at == at(31_s + 1_ms));
    CHECK(expired[0]->node_ref("holder") == world.node("server-1"));

    const TraceEvent* finished = world.finished_event("server-1");
    REQUIRE(finished != nullptr);
    CHECK(finished->at == at(3_s + 8_ms));
    CHECK(finished->text("outcome") == "failed: an error while handling customer 2");
    CHECK(world.finished == std::vector<int>{1});
}

TEST_CASE("with a lock and release_in_finally true, the error still releases the lock") {
    JobSpec job = renewals_job({1, 2, 3});
    job.release_in_finally = true;
    JobWorld world(Setup{.job = job, .lock = redis_lock(), .bad_record_on_server_1 = 2});
    world.run();
    CHECK(world.charges() == std::vector<std::pair<std::int64_t, NodeId>>{{1, world.node("server-1")}});

    const auto ended = events_of(world.engine, trace_kind::belief_ended);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->at == at(3_s + 8_ms));
    CHECK(ended[0]->text("reason") == "released");
    const auto released = events_of(world.engine, trace_kind::lock_released);
    REQUIRE(released.size() == 1);
    CHECK(released[0]->at == at(3_s + 9_ms));
    CHECK(released[0]->node_ref("by") == world.node("server-1"));
    CHECK_FALSE(released[0]->flag("plain"));
    CHECK(events_of(world.engine, trace_kind::lock_expired).empty());

    const TraceEvent* finished = world.finished_event("server-1");
    REQUIRE(finished != nullptr);
    CHECK(finished->at == at(3_s + 10_ms));  // after the release's round trip
    CHECK(finished->text("outcome") == "failed: an error while handling customer 2");
}

TEST_CASE("after server-1's error, the next server to get the lock skips the customer already charged") {
    // server-2's wall clock is 500ms behind, so its job starts at true 1.5s and finds the
    // lock taken; it polls every 100-200ms. server-1 charges customer 1 and fails at
    // customer 2. Released in the finally path, the lock is server-2's at its next poll
    // (within 200ms + a 2ms round trip); abandoned, only once Redis expires it at 31.001s.
    const bool release_in_finally = GENERATE(true, false);
    INFO("release_in_finally " << release_in_finally);
    JobSpec job = renewals_job({1, 2, 3});
    job.release_in_finally = release_in_finally;
    JobWorld world(Setup{.job = job,
                         .servers = 2,
                         .lock = redis_lock(),
                         .bad_record_on_server_1 = 2,
                         .clocks = {{"server-2", ClockSettings{.offset = -500_ms}}}});
    world.run();
    const NodeId server_1 = world.node("server-1");
    const NodeId server_2 = world.node("server-2");

    const auto granted = events_of(world.engine, trace_kind::lock_granted);
    REQUIRE(granted.size() == 2);
    CHECK(granted[0]->node_ref("holder") == server_1);
    CHECK(granted[0]->at == at(1_s + 1_ms));
    CHECK(granted[1]->node_ref("holder") == server_2);
    const Instant freed = release_in_finally ? at(3_s + 9_ms) : at(31_s + 1_ms);
    CHECK(granted[1]->at > freed);
    CHECK(granted[1]->at <= freed + 202_ms);

    const auto skipped = events_of(world.engine, trace_kind::job_customer_skipped);
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0]->node == server_2);
    CHECK(skipped[0]->integer("customer") == 1);
    CHECK(skipped[0]->text("reason") == "already charged");
    // Every customer charged exactly once, between the two servers.
    CHECK(world.charges() == std::vector<std::pair<std::int64_t, NodeId>>{{1, server_1}, {2, server_2}, {3, server_2}});

    const TraceEvent* failed = world.finished_event("server-1");
    REQUIRE(failed != nullptr);
    CHECK(failed->text("outcome") == "failed: an error while handling customer 2");
    const TraceEvent* done = world.finished_event("server-2");
    REQUIRE(done != nullptr);
    CHECK(done->text("outcome") == "done");
    CHECK(world.finished == std::vector<int>{1, 1});
}
