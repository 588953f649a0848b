// What a design's lock is for (purpose), and the job and world options of the course's
// first and last chapters: no lock at all, a unique claim, hash assignment, an elected leader, the index
// rebuild whose work a pause does not count. Scenario texts are parsed and run end to end.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "checks/run_outcome.hpp"
#include "models/trace_kinds.hpp"
#include "models/world/world.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using namespace locksim::testing;

namespace {

// A scenario file around `world` (its top-level world fields, comma-separated).
std::string scenario_around(const std::string& world, const std::string& designs = R"({ "d": {} })") {
    return R"({
  "name": "x",
  "description": "a test world",
  "seed": 1,
  )" + world +
           R"(,
  "designs": )" +
           designs + R"(
})";
}

const std::string servers_3 =
    R"("horizon": "5m", "servers": ["server-1", "server-2", "server-3"], "network": { "delay": "1ms" })";
const std::string no_lock = R"("lock": { "store": "none" })";
const std::string redis_lock_json =
    R"("lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s", "retry": { "min": "1s", "max": "2s" } })";
const std::string etcd_lock =
    R"("lock": { "store": "etcd", "key": "/election/scheduler", "ttl": "10s", "ensemble": 3 })";
const std::string renewals_41_43 =
    R"("job": { "name": "renewals", "at": "00:00", "customers": [41, 42, 43], "period": "2026-10", "work_per_customer": "4s" })";
const std::string renewals_41_46 =
    R"("job": { "name": "renewals", "at": "00:00", "customers": [41, 42, 43, 44, 45, 46], "period": "2026-10", "work_per_customer": "4s" })";
const std::string index_rebuild =
    R"("job": { "kind": "index-rebuild", "name": "search-index", "at": "00:00", "period": "2026-10-01T03", "work": "35s" })";

Scenario parse(const std::string& text) {
    return parse_scenario(text, "test.json", metric_names());
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

const Design& only_design(const Scenario& scenario) {
    REQUIRE(scenario.designs.size() == 1);
    return scenario.designs[0];
}

// How many times the provider charged each customer: "41:3 42:3 43:3".
std::string charges_per_customer(const Trace& trace) {
    std::map<std::int64_t, int> charges;
    for (const auto* event : events_of(trace, trace_kind::provider_charged)) ++charges[event->integer("customer")];
    std::string text;
    for (const auto& [customer, count] : charges)
        text += (text.empty() ? "" : " ") + std::to_string(customer) + ":" + std::to_string(count);
    return text;
}

// Who charged each customer, in customer order: "41:server-3 42:server-1".
std::string charged_by(const Trace& trace) {
    std::map<std::int64_t, std::vector<std::string>> by;
    for (const auto* event : events_of(trace, trace_kind::provider_charged))
        by[event->integer("customer")].push_back(trace.node_name(event->node_ref("by")));
    std::string text;
    for (const auto& [customer, servers] : by)
        for (const auto& server : servers) text += (text.empty() ? "" : " ") + std::to_string(customer) + ":" + server;
    return text;
}

std::vector<std::string> outcomes(const Trace& trace) {
    std::vector<std::string> found;
    for (const auto* event : events_of(trace, trace_kind::job_finished))
        found.push_back(trace.node_name(event->node) + ": " + std::string(event->text("outcome")));
    std::sort(found.begin(), found.end());
    return found;
}

struct Ran {
    RunResult run;
    RunMetrics metrics;
};

Ran run_design(const Design& design, std::uint64_t seed = 1) {
    RunResult run = run_world(design.world, seed);
    RunMetrics metrics = check_trace(run.trace, run.summary.ended_at);
    return Ran{std::move(run), std::move(metrics)};
}

// A computation of `length` on `host`; notes the true time it ended.
Task<void> computer(Host host, Duration length, std::vector<Instant>& ended) {
    co_await host.compute(length);
    ended.push_back(host.engine().now());
}

}  // namespace

// --- purpose --------------------------------------------------------------------------

TEST_CASE(
    "purpose: a design is a correctness lock by default, with implied zero double charges, suppressed "
    "charges, stale writes, items not done, unfinished work and leaked locks") {
    const auto scenario = parse(scenario_around(servers_3 + ", " + redis_lock_json + ", " + renewals_41_43));
    const auto& design = only_design(scenario);
    CHECK(design.purpose == LockPurpose::correctness);
    const char* implied[] = {"double_charges", "suppressed_effects", "stale_writes_accepted",
                             "items_not_done", "unfinished_work",    "locks_leaked"};
    REQUIRE(design.expectations.size() == std::size(implied));
    for (std::size_t i = 0; i < std::size(implied); ++i) {
        CHECK(design.expectations[i].metric == implied[i]);
        CHECK(design.expectations[i].comparison == Expectation::Comparison::equals);
        CHECK(design.expectations[i].value == 0);
        CHECK(design.expectations[i].implied);
    }
}

TEST_CASE("purpose: an expectation the file states on a metric replaces the implied one") {
    const auto scenario = parse(scenario_around(servers_3 + ", " + redis_lock_json + ", " + renewals_41_43,
                                                R"({ "d": { "expect": { "charges": 4, "double_charges": 1 } } })"));
    const auto& design = only_design(scenario);
    REQUIRE(design.expectations.size() == 7);
    CHECK(design.expectations[0].metric == "charges");
    CHECK_FALSE(design.expectations[0].implied);
    CHECK(design.expectations[1].metric == "double_charges");
    CHECK(design.expectations[1].value == 1);
    CHECK_FALSE(design.expectations[1].implied);
    CHECK(design.expectations[2].metric == "suppressed_effects");
    CHECK(design.expectations[2].implied);
    CHECK(design.expectations[3].metric == "stale_writes_accepted");
    CHECK(design.expectations[3].implied);
    // A stated "at most" counts as stating the metric too.
    const auto bounded =
        parse(scenario_around(servers_3 + ", " + redis_lock_json + ", " + renewals_41_43,
                              R"({ "d": { "expect": { "stale_writes_accepted": { "at_most": 2 } } } })"));
    const auto& stated = only_design(bounded).expectations;
    REQUIRE(stated.size() == 6);
    CHECK(stated[0].metric == "stale_writes_accepted");
    CHECK(stated[0].comparison == Expectation::Comparison::at_most);
    CHECK_FALSE(stated[0].implied);
    CHECK(stated[1].metric == "double_charges");
    CHECK(stated[1].implied);
    CHECK(stated[2].metric == "suppressed_effects");
    CHECK(stated[2].implied);
}

TEST_CASE("purpose: an efficiency design gets no implied expectations") {
    const auto scenario = parse(scenario_around(servers_3 + ", " + redis_lock_json + ", " + index_rebuild,
                                                R"({ "bare": { "purpose": "efficiency" },
                                                   "stated": { "purpose": "efficiency", "expect": { "duplicate_work_ms": 0 } } })"));
    const auto& bare = design_named(scenario, "bare");
    CHECK(bare.purpose == LockPurpose::efficiency);
    CHECK(bare.expectations.empty());
    const auto& stated = design_named(scenario, "stated");
    REQUIRE(stated.expectations.size() == 1);
    CHECK(stated.expectations[0].metric == "duplicate_work_ms");
    CHECK_FALSE(stated.expectations[0].implied);
}

TEST_CASE("purpose: set at the top level it applies to every design, and a design may override it") {
    const auto scenario = parse(scenario_around(
        servers_3 + ", " + redis_lock_json + ", " + renewals_41_43 + R"(, "purpose": "efficiency")",
        R"({ "inherits": {}, "overrides": { "purpose": "correctness" }, "explicit": { "purpose": "efficiency" } })"));
    CHECK(design_named(scenario, "inherits").purpose == LockPurpose::efficiency);
    CHECK(design_named(scenario, "inherits").expectations.empty());
    CHECK(design_named(scenario, "overrides").purpose == LockPurpose::correctness);
    CHECK(design_named(scenario, "overrides").expectations.size() == 6);
    CHECK(design_named(scenario, "explicit").purpose == LockPurpose::efficiency);
}

TEST_CASE("purpose: an unknown purpose names the field's pointer and the two purposes") {
    const auto top = error_of(
        scenario_around(servers_3 + ", " + redis_lock_json + ", " + renewals_41_43 + R"(, "purpose": "speed")"));
    CHECK(top.starts_with("test.json:"));
    CHECK(contains(top, "/purpose: unknown purpose \"speed\"; expected \"correctness\""));
    CHECK(contains(top, "\"efficiency\""));
    const auto in_design = error_of(scenario_around(servers_3 + ", " + redis_lock_json + ", " + renewals_41_43,
                                                    R"({ "d": { "purpose": "Efficiency" } })"));
    CHECK(contains(in_design, "/designs/d/purpose: unknown purpose \"Efficiency\""));
    const auto not_text = error_of(
        scenario_around(servers_3 + ", " + redis_lock_json + ", " + renewals_41_43, R"({ "d": { "purpose": 1 } })"));
    CHECK(contains(not_text, "/designs/d/purpose: expected a string"));
}

TEST_CASE("purpose: describe_failure marks an implied expectation as a correctness lock's") {
    Expectation zero{"double_charges", Expectation::Comparison::equals, 0, true};
    zero.implied_because = "a correctness lock";
    ExpectationResult implied{zero, 6, false};
    CHECK(describe_failure(implied) == "double_charges expected 0 (a correctness lock), got 6");
    ExpectationResult stated{Expectation{"double_charges", Expectation::Comparison::equals, 0, false}, 1, false};
    CHECK(describe_failure(stated) == "double_charges expected 0, got 1");
    ExpectationResult bounded{Expectation{"stall_ms", Expectation::Comparison::at_most, 10000, false}, 12000, false};
    CHECK(describe_failure(bounded) == "stall_ms expected at most 10000, got 12000");
}

TEST_CASE(
    "purpose: without a lock a correctness design fails its implied expectation, an efficiency one the violation") {
    const auto scenario = parse(scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_43,
                                                R"({ "correct": {}, "efficient": { "purpose": "efficiency" } })"));
    const auto outcome = run_scenario(scenario, scenario.seed);
    const auto& correct = design_named(outcome, "correct");
    CHECK(correct.purpose == LockPurpose::correctness);
    CHECK_FALSE(correct.held());
    REQUIRE(correct.expectations.size() == 6);
    CHECK(correct.expectations[0].actual == 6);
    CHECK_FALSE(correct.expectations[0].held);
    CHECK(describe_failure(correct.expectations[0]) == "double_charges expected 0 (a correctness lock), got 6");
    CHECK(correct.expectations[1].held);                                      // no key, no replays
    CHECK(correct.expectations[2].held);                                      // no fencing, no stale writes
    for (std::size_t i = 3; i < 6; ++i) CHECK(correct.expectations[i].held);  // all done, finished, nothing left held
    // An efficiency lock's purpose declares its duplicated work, not money moved twice.
    const auto& efficient = design_named(outcome, "efficient");
    CHECK(efficient.purpose == LockPurpose::efficiency);
    REQUIRE(efficient.expectations.size() == 1);
    CHECK(describe_failure(efficient.expectations[0]) ==
          "double_charges expected 0 (a violation the design's \"expect\" does not name), got 6");
    CHECK_FALSE(efficient.held());
    CHECK(efficient.metrics.value(Metric::double_charges) == 6);
    CHECK_FALSE(outcome.held());
}

TEST_CASE("purpose: the program exits 2 on an unknown purpose and 1 when an implied expectation fails") {
    const auto broken =
        write_temp("locksim_purpose_speed.json",
                   scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_43 + R"(, "purpose": "speed")"));
    const auto refused = run_locksim("run " + broken);
    CHECK(refused.exit_code == 2);
    CHECK(refused.err.find(broken + ":") == 0);
    CHECK(contains(refused.err, "/purpose: unknown purpose \"speed\""));

    const auto failing =
        write_temp("locksim_purpose_implied.json",
                   scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_43, R"({ "no-lock": {} })"));
    const auto failed = run_locksim("run " + failing);
    CHECK(failed.exit_code == 1);
    CHECK(contains(failed.out, "no-lock: double_charges expected 0 (a correctness lock), got 6"));
}

// --- no lock, unique claim --------------------------------------------------------------

TEST_CASE("store none: a lock with any other field is refused, and a design can drop the base lock's fields") {
    const auto error =
        error_of(scenario_around(servers_3 + R"(, "lock": { "store": "none", "ttl": "30s" }, )" + renewals_41_43));
    CHECK(contains(error, "/lock/ttl: unknown field \"ttl\"; expected one of: store"));
    const auto in_design = error_of(scenario_around(servers_3 + ", " + redis_lock_json + ", " + renewals_41_43,
                                                    R"({ "d": { "lock": { "store": "none" } } })"));
    // The base lock's key stays unless the design drops it with null.
    CHECK(contains(in_design, "/lock/key: unknown field \"key\"; expected one of: store (in design \"d\")"));
    const auto dropped =
        parse(scenario_around(servers_3 + ", " + redis_lock_json + ", " + renewals_41_43,
                              R"({ "d": { "lock": { "store": "none", "key": null, "ttl": null, "retry": null } } })"));
    const auto& world = only_design(dropped).world;
    CHECK(world.lock.store == StoreKind::none);
    CHECK(world.store_nodes.empty());
}

TEST_CASE("store none: three servers without a lock charge every customer three times") {
    const auto scenario = parse(scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_43));
    const auto ran = run_design(only_design(scenario));
    CHECK(ran.metrics.value(Metric::charges) == 9);
    CHECK(charges_per_customer(ran.run.trace) == "41:3 42:3 43:3");
    CHECK(ran.metrics.value(Metric::double_charges) == 6);
    CHECK(ran.metrics.value(Metric::double_applies) == 6);
    CHECK(ran.metrics.value(Metric::job_runs) == 3);
    CHECK(ran.metrics.value(Metric::lock_refusals) == 0);
    CHECK(events_of(ran.run.trace, trace_kind::belief_acquired).empty());
    CHECK(ran.run.trace.node_names() ==
          std::vector<std::string>{"server-1", "server-2", "server-3", "payment-provider", "billing-db"});
    CHECK(outcomes(ran.run.trace) == std::vector<std::string>{"server-1: done", "server-2: done", "server-3: done"});
}

TEST_CASE("store none: with no lock to wait for, no job waited for one") {
    // The jobs start at midnight and never hold a lock, because there is none: they did
    // not spend their run waiting for it.
    const auto scenario = parse(scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_43));
    const auto ran = run_design(only_design(scenario));
    REQUIRE(ran.metrics.value(Metric::finished_ms) > 12000);
    CHECK(ran.metrics.value("longest_wait_ms") == 0);
}

TEST_CASE("unique claim: each customer is charged once, the other servers skip it at the duplicate key") {
    const auto scenario =
        parse(scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_43 + R"(, "unique_claim": true)"));
    const auto& design = only_design(scenario);
    CHECK(design.world.protection.unique_claim);
    const auto ran = run_design(design);
    CHECK(ran.metrics.value(Metric::charges) == 3);
    CHECK(charges_per_customer(ran.run.trace) == "41:1 42:1 43:1");
    CHECK(ran.metrics.value(Metric::double_charges) == 0);
    CHECK(ran.metrics.value(Metric::double_applies) == 0);
    int inserted = 0, refused = 0;
    for (const auto* write : events_of(ran.run.trace, trace_kind::db_write))
        if (write->text("status") == "claimed") (write->integer("rows") == 1 ? inserted : refused) += 1;
    CHECK(inserted == 3);
    CHECK(refused == 6);
    const auto skipped = events_of(ran.run.trace, trace_kind::job_customer_skipped);
    REQUIRE(skipped.size() == 6);
    for (const auto* skip : skipped) CHECK(skip->text("reason") == "another server inserted the renewal first");
}

TEST_CASE("unique claim: false is the same as leaving it out") {
    const auto scenario =
        parse(scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_43 + R"(, "unique_claim": false)"));
    CHECK_FALSE(only_design(scenario).world.protection.unique_claim);
    CHECK(run_design(only_design(scenario)).metrics.value(Metric::charges) == 9);
}

TEST_CASE("unique claim: the first insert wins even when its server then freezes for 40s") {
    const auto scenario = parse(scenario_around(
        servers_3 + ", " + no_lock + ", " + renewals_41_43 +
        R"(, "unique_claim": true, "faults": [ { "pause": "server-1", "at": "6s", "for": "40s", "kind": "gc" } ])"));
    const auto ran = run_design(only_design(scenario));
    CHECK(charges_per_customer(ran.run.trace) == "41:1 42:1 43:1");
    CHECK(ran.metrics.value(Metric::double_applies) == 0);
}

TEST_CASE("unique claim with fencing: the fenced claim must not make the server lose its own insert") {
    // With fencing the server first claims the row with its token (status 'claimed'); its
    // own INSERT must then not be taken for another server's. Either the loader refuses
    // the combination, naming the field, or every customer is still charged exactly once.
    const std::string text = scenario_around(
        servers_3 + R"(, "lock": { "store": "lease-row", "key": "renewals", "ttl": "30s" }, )" + renewals_41_43,
        R"({ "d": { "fencing": true, "unique_claim": true } })");
    std::optional<Scenario> scenario;
    try {
        scenario = parse(text);
    } catch (const ScenarioError& error) {
        const std::string message = error.what();
        INFO(message);
        CHECK((contains(message, "/designs/d/unique_claim") || contains(message, "/designs/d/fencing")));
        return;
    }
    const auto ran = run_design(only_design(*scenario));
    CHECK(charges_per_customer(ran.run.trace) == "41:1 42:1 43:1");
    int lost_own_insert = 0;
    for (const auto* skip : events_of(ran.run.trace, trace_kind::job_customer_skipped))
        lost_own_insert += skip->text("reason") == "another server inserted the renewal first" ? 1 : 0;
    CHECK(lost_own_insert == 0);
}

// --- hash assignment --------------------------------------------------------------------

TEST_CASE("hash assignment: customer c is charged only by the server at index c mod 3") {
    const auto scenario = parse(scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_46,
                                                R"({ "d": { "job": { "assign": "hash" } } })"));
    CHECK(only_design(scenario).world.job.assignment == Assignment::hash);
    const auto ran = run_design(only_design(scenario));
    CHECK(ran.metrics.value(Metric::charges) == 6);
    CHECK(ran.metrics.value(Metric::double_charges) == 0);
    CHECK(ran.metrics.value(Metric::double_applies) == 0);
    CHECK(charged_by(ran.run.trace) == "41:server-3 42:server-1 43:server-2 44:server-3 45:server-1 46:server-2");
}

TEST_CASE("hash assignment: the index is the place in the servers list, not the order of the names") {
    const auto scenario =
        parse(scenario_around(R"("horizon": "5m", "servers": ["zeta", "alpha"], "network": { "delay": "1ms" }, )" +
                                  no_lock + ", " + renewals_41_46,
                              R"({ "d": { "job": { "assign": "hash" } } })"));
    const auto ran = run_design(only_design(scenario));
    CHECK(charged_by(ran.run.trace) == "41:alpha 42:zeta 43:alpha 44:zeta 45:alpha 46:zeta");
}

TEST_CASE("hash assignment: a crashed owner's customers are not charged by anyone else") {
    const auto scenario = parse(scenario_around(
        servers_3 + ", " + no_lock + ", " + renewals_41_46 + R"(, "faults": [ { "crash": "server-2", "at": "1s" } ])",
        R"({ "d": { "job": { "assign": "hash" } } })"));
    const auto ran = run_design(only_design(scenario));
    CHECK(ran.metrics.value(Metric::charges) == 4);
    CHECK(charged_by(ran.run.trace) == "41:server-3 42:server-1 44:server-3 45:server-1");
}

TEST_CASE("hash assignment: assigning all is the default, and an unknown assignment is refused") {
    const auto scenario = parse(scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_46));
    CHECK(only_design(scenario).world.job.assignment == Assignment::all);
    CHECK(run_design(only_design(scenario)).metrics.value(Metric::charges) == 18);
    const auto error = error_of(scenario_around(servers_3 + ", " + no_lock + ", " + renewals_41_46,
                                                R"({ "d": { "job": { "assign": "round-robin" } } })"));
    CHECK(contains(error, "/designs/d/job/assign: unknown value \"round-robin\"; expected \"all\" or \"hash\""));
}

// --- leadership -----------------------------------------------------------------------

TEST_CASE("leadership: only the elected leader's scheduler runs the job, the others skip it") {
    const std::string job =
        R"("job": { "name": "renewals", "at": "00:01", "customers": [41, 42, 43], "period": "2026-10", "work_per_customer": "4s", "lock_for": "leadership" })";
    const auto scenario =
        parse(scenario_around(servers_3 + ", " + etcd_lock + ", " + job,
                              R"({ "leader": {}, "each-run": { "job": { "lock_for": "each-run" } } })"));
    CHECK(design_named(scenario, "leader").world.job.lock_scope == LockScope::leadership);
    CHECK(design_named(scenario, "each-run").world.job.lock_scope == LockScope::each_run);

    const auto leader = run_design(design_named(scenario, "leader"));
    CHECK(leader.metrics.value(Metric::job_runs) == 1);
    CHECK(leader.metrics.value("job_runs") == 1);
    CHECK(leader.metrics.value(Metric::charges) == 3);
    CHECK(leader.metrics.value(Metric::double_charges) == 0);
    CHECK(leader.metrics.overlaps.empty());
    CHECK(events_of(leader.run.trace, trace_kind::job_campaigning).size() == 3);
    const auto started = events_of(leader.run.trace, trace_kind::job_started);
    REQUIRE(started.size() == 1);
    CHECK(started[0]->at >= at(1_min));
    int skipped = 0;
    for (const auto* finished : events_of(leader.run.trace, trace_kind::job_finished)) {
        if (finished->node == started[0]->node) {
            CHECK(finished->text("outcome") == "done");
        } else {
            CHECK(finished->text("outcome") == "skipped: not the leader");
            CHECK(finished->at >= at(1_min));
            ++skipped;
        }
    }
    CHECK(skipped == 2);
    // Elected before the job's time: the leader's job did not wait for the lock.
    const auto acquired = events_of(leader.run.trace, trace_kind::belief_acquired);
    REQUIRE_FALSE(acquired.empty());
    CHECK(acquired[0]->node == started[0]->node);
    CHECK(acquired[0]->at < at(1_min));
    CHECK(leader.metrics.longest_wait == 0_s);

    const auto each_run = run_design(design_named(scenario, "each-run"));
    CHECK(each_run.metrics.value(Metric::job_runs) == 3);
    CHECK(each_run.metrics.value(Metric::charges) == 3);
    CHECK(each_run.metrics.longest_wait > 12_s);  // the last server waits for two runs of three customers
}

TEST_CASE("leadership: an index rebuild run by the leader is built once") {
    const std::string job =
        R"("job": { "kind": "index-rebuild", "name": "search-index", "at": "00:01", "period": "2026-10-01T03", "work": "35s", "lock_for": "leadership" })";
    const auto scenario =
        parse(scenario_around(servers_3 + ", " + etcd_lock + ", " + job + R"(, "purpose": "efficiency")"));
    const auto ran = run_design(only_design(scenario));
    CHECK(ran.metrics.value(Metric::job_runs) == 1);
    CHECK(events_of(ran.run.trace, trace_kind::index_built).size() == 1);
    CHECK(ran.metrics.duplicate_work == 0_s);
}

TEST_CASE("leadership: refused without a shared lock store, and an unknown scope is refused") {
    const std::string job =
        R"("job": { "name": "renewals", "at": "00:01", "customers": [41], "period": "2026-10", "work_per_customer": "4s", "lock_for": "leadership" })";
    const auto none = error_of(scenario_around(servers_3 + ", " + no_lock + ", " + job));
    CHECK(contains(none, "/job/lock_for: a leader is elected through a shared lock store; this design has none"));
    const auto in_memory =
        error_of(scenario_around(servers_3 + R"(, "lock": { "store": "in-memory", "key": "k" }, )" + job));
    CHECK(contains(in_memory, "/job/lock_for: a leader is elected through a shared lock store"));
    const auto unknown = error_of(scenario_around(servers_3 + ", " + etcd_lock + ", " + renewals_41_43,
                                                  R"({ "d": { "job": { "lock_for": "ever" } } })"));
    CHECK(
        contains(unknown, "/designs/d/job/lock_for: unknown value \"ever\"; expected \"each-run\" or \"leadership\""));
}

// --- index rebuild ----------------------------------------------------------------------

TEST_CASE("index rebuild: read with its own fields, and no customers") {
    const auto scenario = parse(scenario_around(servers_3 + ", " + redis_lock_json + ", " + index_rebuild));
    const auto& job = only_design(scenario).world.job;
    CHECK(job.kind == JobKind::index_rebuild);
    CHECK(job.name == "search-index");
    CHECK(job.period == "2026-10-01T03");
    CHECK(job.rebuild_work == 35_s);
    CHECK(job.starts_at == at(0_s));
    CHECK(job.customers.empty());
}

TEST_CASE("index rebuild: without a fault one server builds, the others find the index built") {
    const auto scenario = parse(
        scenario_around(servers_3 + ", " + redis_lock_json + ", " + index_rebuild + R"(, "purpose": "efficiency")"));
    const auto ran = run_design(only_design(scenario));
    const auto built = events_of(ran.run.trace, trace_kind::index_built);
    REQUIRE(built.size() == 1);
    CHECK(built[0]->duration("cpu") == 35_s);
    CHECK(built[0]->text("period") == "2026-10-01T03");
    CHECK(ran.metrics.duplicate_work == 0_s);
    CHECK(ran.metrics.value(Metric::charges) == 0);
    const auto ends = outcomes(ran.run.trace);
    CHECK(std::count(ends.begin(), ends.end(), ran.run.trace.node_name(built[0]->node_ref("client")) + ": done") == 1);
    int already = 0;
    for (const auto& end : ends) already += contains(end, "skipped: the index is already built") ? 1 : 0;
    CHECK(already == 2);
}

TEST_CASE("index rebuild: a 40s pause past a 30s lease builds the index twice, 35s wasted, the paused build at 75s") {
    const auto scenario = parse(scenario_around(
        servers_3 + ", " + redis_lock_json + ", " + index_rebuild +
        R"(, "purpose": "efficiency", "faults": [ { "pause": "server-1", "for": "40s", "kind": "gc", "when": { "event": "job.rebuilding", "node": "server-1" } } ])"));
    const auto outcome = run_scenario(scenario, scenario.seed);
    const auto& design = outcome.designs.at(0);
    const auto& trace = design.trace;

    // server-1 is the first holder: the pause lands on the first build.
    const auto rebuilding = events_of(trace, trace_kind::job_rebuilding);
    REQUIRE(rebuilding.size() == 2);
    REQUIRE(trace.node_name(rebuilding[0]->node) == "server-1");
    const Instant began = rebuilding[0]->at;
    CHECK(began < at(1_s));

    CHECK(design.metrics.duplicate_work == 35_s);
    CHECK(design.metrics.value("duplicate_work_ms") == 35000);
    CHECK(design.held());
    CHECK(efficiency_cost(design) == "35s of duplicated work");

    const auto built = events_of(trace, trace_kind::index_built);
    REQUIRE(built.size() == 2);
    // The other server built first, after the lease ran out at 30s.
    CHECK(trace.node_name(built[0]->node_ref("client")) != "server-1");
    CHECK(built[0]->at > at(65_s));
    CHECK(built[0]->at < at(70_s));
    // The paused server's 35s of work did not advance during its 40s pause.
    CHECK(trace.node_name(built[1]->node_ref("client")) == "server-1");
    CHECK(built[1]->at >= began + 75_s);
    CHECK(built[1]->at < began + 75_s + 10_ms);
    CHECK(built[1]->duration("cpu") == 35_s);
}

TEST_CASE("index rebuild: a pause that ends before the work does still adds its length") {
    // 10s into the build server-1 freezes for 5s: it is done 40s after it began, and
    // nobody else builds because the lease (renewed once it resumes) outlives the gap.
    const auto scenario = parse(scenario_around(
        servers_3 + ", " + redis_lock_json + ", " + index_rebuild +
        R"(, "purpose": "efficiency", "faults": [ { "pause": "server-1", "at": "10s", "for": "5s", "kind": "gc" } ])"));
    const auto ran = run_design(only_design(scenario));
    const auto rebuilding = events_of(ran.run.trace, trace_kind::job_rebuilding);
    REQUIRE_FALSE(rebuilding.empty());
    REQUIRE(ran.run.trace.node_name(rebuilding[0]->node) == "server-1");
    const auto built = events_of(ran.run.trace, trace_kind::index_built);
    REQUIRE(built.size() == 1);
    CHECK(built[0]->at >= rebuilding[0]->at + 40_s);
    CHECK(built[0]->at < rebuilding[0]->at + 40_s + 10_ms);
    CHECK(ran.metrics.duplicate_work == 0_s);
}

TEST_CASE("index rebuild: the loader refuses renewals fields, a zero build, and a unique claim") {
    const auto customers = error_of(scenario_around(
        servers_3 + ", " + redis_lock_json +
        R"(, "job": { "kind": "index-rebuild", "name": "i", "at": "00:00", "period": "P", "work": "35s", "customers": [41] })"));
    CHECK(contains(customers, "/job/customers: unknown field \"customers\""));
    const auto assign = error_of(scenario_around(
        servers_3 + ", " + redis_lock_json +
        R"(, "job": { "kind": "index-rebuild", "name": "i", "at": "00:00", "period": "P", "work": "35s", "assign": "hash" })"));
    CHECK(contains(assign, "/job/assign: unknown field \"assign\""));
    const auto zero = error_of(scenario_around(
        servers_3 + ", " + redis_lock_json +
        R"(, "job": { "kind": "index-rebuild", "name": "i", "at": "00:00", "period": "P", "work": "0s" })"));
    CHECK(contains(zero, "/job/work: expected the processor time of one build, above 0s"));
    const auto missing =
        error_of(scenario_around(servers_3 + ", " + redis_lock_json +
                                 R"(, "job": { "kind": "index-rebuild", "name": "i", "at": "00:00", "period": "P" })"));
    CHECK(contains(missing, "/job"));
    CHECK(contains(missing, "work"));
    const auto unique = error_of(
        scenario_around(servers_3 + ", " + redis_lock_json + ", " + index_rebuild + R"(, "unique_claim": true)"));
    CHECK(contains(unique, "/unique_claim: a unique claim inserts renewal rows; the job must be the renewals job"));
    const auto unique_in_design = error_of(scenario_around(servers_3 + ", " + redis_lock_json + ", " + index_rebuild,
                                                           R"({ "d": { "unique_claim": true } })"));
    CHECK(contains(unique_in_design, "/designs/d/unique_claim: a unique claim inserts renewal rows"));
    const auto kind = error_of(
        scenario_around(servers_3 + ", " + redis_lock_json +
                        R"(, "job": { "kind": "reindex", "name": "i", "at": "00:00", "period": "P", "work": "1s" })"));
    CHECK(contains(
        kind, "/job/kind: unknown value \"reindex\"; expected \"renewals\", \"index-rebuild\" or \"leader-loop\""));
}

// --- Host::compute ----------------------------------------------------------------------

TEST_CASE("compute: without a pause 10s of work ends 10s later") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> ended;
    engine.spawn(server, computer(Host(engine, server), 10_s, ended));
    engine.run(at(1_min));
    CHECK(ended == std::vector<Instant>{at(10_s)});
    CHECK(engine.time_paused(server) == 0_s);
}

TEST_CASE("compute: a 5s pause at 2s delays 10s of work to 15s, where a sleep would still end at 10s") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> computed, slept;
    engine.spawn(server, computer(Host(engine, server), 10_s, computed));
    engine.spawn(server, sleeper(Host(engine, server), 10_s, slept));
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.run(at(1_min));
    CHECK(computed == std::vector<Instant>{at(15_s)});
    CHECK(slept == std::vector<Instant>{at(10_s)});
}

TEST_CASE("compute: two pauses add up") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Instant> ended;
    engine.spawn(server, computer(Host(engine, server), 10_s, ended));
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    engine.schedule_at(at(8_s), no_node, [&engine, server] { engine.pause(server, 3_s, "swap"); });
    engine.run(at(1_min));
    CHECK(ended == std::vector<Instant>{at(18_s)});
    CHECK(engine.time_paused(server) == 8_s);
}

TEST_CASE("compute: a pause that spans the work's end, and a pause extended while frozen, count in full") {
    SECTION("spanning the end") {
        Engine engine(1);
        const NodeId server = engine.add_node("server-1");
        std::vector<Instant> ended;
        engine.spawn(server, computer(Host(engine, server), 10_s, ended));
        engine.schedule_at(at(8_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
        engine.run(at(1_min));
        CHECK(ended == std::vector<Instant>{at(15_s)});
    }
    SECTION("extended") {
        Engine engine(1);
        const NodeId server = engine.add_node("server-1");
        std::vector<Instant> ended;
        engine.spawn(server, computer(Host(engine, server), 10_s, ended));
        engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
        engine.schedule_at(at(4_s), no_node,
                           [&engine, server] { engine.pause(server, 6_s, "gc"); });  // frozen until 10s
        engine.run(at(1_min));
        CHECK(ended == std::vector<Instant>{at(18_s)});
    }
}

TEST_CASE("compute: a pause of another node does not slow this one") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    const NodeId other = engine.add_node("server-2");
    std::vector<Instant> ended;
    engine.spawn(server, computer(Host(engine, server), 10_s, ended));
    engine.schedule_at(at(2_s), no_node, [&engine, other] { engine.pause(other, 5_s, "gc"); });
    engine.run(at(1_min));
    CHECK(ended == std::vector<Instant>{at(10_s)});
}

TEST_CASE("time_paused counts the pause under way, and every pause that ended") {
    Engine engine(1);
    const NodeId server = engine.add_node("server-1");
    std::vector<Duration> seen;
    engine.schedule_at(at(2_s), no_node, [&engine, server] { engine.pause(server, 5_s, "gc"); });
    for (Duration when : {1_s, 4_s, 8_s})
        engine.schedule_at(at(when), no_node, [&engine, server, &seen] { seen.push_back(engine.time_paused(server)); });
    engine.run(at(1_min));
    CHECK(seen == std::vector<Duration>{0_s, 2_s, 5_s});
}
