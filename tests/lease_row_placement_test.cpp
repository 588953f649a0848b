// lock.in_billing_database: a lease row kept in the billing database itself, the one the
// job's claims and records go to, rather than in a database of its own. One node: a crash
// of that database stops the lock and the job's statements together.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <string>

#include "models/trace_kinds.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// A fenced lease row; whatever holds the lock (the primary) crashes at 6 s for 40 s while
// server 1 holds it and prepares customer 42. Statements give up after 2 s.
const std::string lease_row_world = R"({"name": "placement", "description": "d", "seed": 1, "horizon": "5m",
  "servers": ["server-1", "server-2"], "network": {"delay": "1ms"},
  "lock": {"store": "lease-row", "key": "renewals", "ttl": "30s", "first_token": 33},
  "job": {"name": "renewals", "at": "00:00", "customers": [41, 42, 43, 44], "period": "2026-10",
          "work_per_customer": "4s", "read_timeout": "2s"},
  "fencing": true,
  "faults": [{"crash": {"role": "primary"}, "at": "6s", "restart_after": "40s"}],
  "designs": {"own-database": {}, "in-billing-database": {"lock": {"in_billing_database": true}}}})";

}  // namespace

TEST_CASE("a lease row in the billing database is granted there, and has no node of its own") {
    const ScenarioOutcome outcome = run_scenario(parse_scenario(lease_row_world, "test.json", metric_names()), 1);
    const auto& own = design_named(outcome, "own-database");
    const auto& shared = design_named(outcome, "in-billing-database");
    CHECK(std::find(own.lanes.begin(), own.lanes.end(), "lock-store") != own.lanes.end());
    CHECK(std::find(shared.lanes.begin(), shared.lanes.end(), "lock-store") == shared.lanes.end());
    const auto granted = events_of(shared.trace, trace_kind::lock_granted.name);
    REQUIRE_FALSE(granted.empty());
    for (const auto* grant : granted) CHECK(shared.trace.node_name(grant->node) == "billing-db");
    const auto crashed = events_of(shared.trace, trace_kind::node_crashed.name);
    REQUIRE(crashed.size() == 1);
    CHECK(shared.trace.node_name(crashed[0]->node) == "billing-db");  // the primary is the billing database
}

TEST_CASE("a crash of the billing database holding the lease row stops the lock and the job's statements at once") {
    const ScenarioOutcome outcome = run_scenario(parse_scenario(lease_row_world, "test.json", metric_names()), 1);
    // Its own database down, the lock goes unrenewed while the job's statements go on: server
    // 1 finishes every customer on its lease.
    const auto& own = design_named(outcome, "own-database");
    CHECK(events_of(own.trace, trace_kind::job_error.name).empty());
    int charged_by_server_1 = 0;
    for (const auto* charge : events_of(own.trace, trace_kind::provider_charged.name))
        if (own.trace.node_name(charge->node_ref("by")) == "server-1") ++charged_by_server_1;
    CHECK(charged_by_server_1 == 4);
    // In the billing database, the claim of customer 42 gets no answer: the job fails, and
    // server 2 does the rest once the database is back and the lease has run out.
    const auto& shared = design_named(outcome, "in-billing-database");
    const auto errors = events_of(shared.trace, trace_kind::job_error.name);
    REQUIRE(errors.size() == 1);
    CHECK(shared.trace.node_name(errors[0]->node) == "server-1");
    CHECK(errors[0]->integer("customer") == 42);
    CHECK(shared.metrics.value(Metric::charges) == 4);
    CHECK(shared.metrics.value(Metric::double_charges) == 0);
    CHECK(shared.metrics.value(Metric::items_not_done) == 0);
}

TEST_CASE("the loader takes in_billing_database for a lease row only") {
    CHECK(says(error_of(R"({"name": "n", "description": "d", "seed": 1, "servers": ["server-1"],
      "lock": {"store": "redis", "key": "k", "ttl": "10s", "in_billing_database": true},
      "job": {"name": "renewals", "at": "00:00", "customers": [1], "period": "2026-10"},
      "designs": {"d": {}}})"),
               "/lock/in_billing_database"));
}
