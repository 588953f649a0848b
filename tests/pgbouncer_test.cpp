// PgBouncer in transaction mode in front of the advisory lock: the statements of every
// client run on server sessions the pool lends, so the lock stays with a shared session.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <string>
#include <vector>

#include "models/trace_kinds.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

const DesignOutcome& pgbouncer_run(const ScenarioOutcome& outcome, const std::string& design) {
    return design_named(outcome, design);
}

ScenarioOutcome pgbouncer_scenario() {
    return run_scenario(load_scenario_file(scenario_path("db-advisory-pgbouncer.json"), metric_names()), 1);
}

// The replies the database sent, in order, that name a server session.
std::vector<std::string> session_replies(const Trace& trace) {
    std::vector<std::string> replies;
    for (const auto& event : trace.events())
        if (event.kind == trace_kind::message_sent && event.text("label").find("(server session") != std::string::npos)
            replies.push_back(std::string(event.text("label")));
    return replies;
}

}  // namespace

TEST_CASE("pgbouncer: with LIFO lending the second server is lent the holding session and granted the lock again") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    const auto& design = pgbouncer_run(outcome, "pgbouncer-transaction-mode");
    std::vector<std::string> grants;
    for (const auto& event : design.trace.events())
        if (event.kind == trace_kind::lock_granted)
            grants.push_back(design.trace.node_name(event.node_ref("holder")) + " " + std::string(event.text("value")));
    REQUIRE(grants.size() == 2);
    CHECK(grants[0] == "server-1 advisory");
    CHECK(grants[1] == "server-2 advisory, again on session 1");
    CHECK(design.metrics.value(Metric::lock_refusals) == 0);
    CHECK(design.metrics.overlaps.size() == 1);
    const auto replies = session_replies(design.trace);
    for (const auto& reply : replies) CHECK(reply.find("(server session 1)") != std::string::npos);
}

TEST_CASE(
    "pgbouncer: round-robin lending refuses once, then lends the holder's session, and an unlock lands elsewhere") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    const auto& design = pgbouncer_run(outcome, "pgbouncer-round-robin");
    const auto replies = session_replies(design.trace);
    REQUIRE(replies.size() == 5);  // two tries by server-2, one by server-1, two unlocks
    CHECK(replies[0] == "t (server session 1)");
    CHECK(replies[1] == "f (server session 2)");
    CHECK(replies[2] == "t (server session 1)");
    // One unlock on each session: the one on session 2 unlocks nothing, and the lock,
    // taken twice on session 1, is still held there when both jobs have ended.
    CHECK(replies[3] == "f (server session 2)");
    CHECK(replies[4] == "t (server session 1)");
    for (const auto& event : design.trace.events()) CHECK(event.kind != trace_kind::lock_released);
}

TEST_CASE("pgbouncer: direct connections keep the lock with its client") {
    const ScenarioOutcome outcome = pgbouncer_scenario();
    const auto& design = pgbouncer_run(outcome, "direct");
    CHECK(design.metrics.overlaps.empty());
    CHECK(design.metrics.value(Metric::double_charges) == 0);
    CHECK(session_replies(design.trace).empty());
}

TEST_CASE("pgbouncer: the loader takes a transaction-mode pooler for advisory locks only") {
    const std::string world = R"({"name": "x", "description": "d", "seed": 1, "horizon": "1m",
      "servers": ["server-1"], "network": {"delay": "1ms"},
      "job": {"name": "renewals", "at": "00:00", "customers": [1], "period": "p", "work_per_customer": "1s"},
      "designs": {"d": {}}, "lock": )";
    CHECK(error_of(world + R"({"store": "db-advisory", "key": "k", "pooler": {"mode": "transaction"}}})") ==
          "no error");
    CHECK(says(error_of(world + R"({"store": "db-for-update", "key": "k", "pooler": {}}})"), "/lock/pooler"));
    CHECK(says(error_of(world + R"({"store": "db-advisory", "key": "k", "pooler": {"mode": "session"}}})"),
               "/lock/pooler/mode: expected \"transaction\""));
    CHECK(says(error_of(world + R"({"store": "db-advisory", "key": "k", "pooler": {"pool_size": 0}}})"),
               "/lock/pooler/pool_size"));
}
