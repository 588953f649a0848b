// lock.job_statements: whether the job's own billing statements share the database lock's
// connection. On a connection of their own they never count as activity on the lock's
// session; through the pooler they run on the sessions it lends, and keep them busy.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <string>
#include <vector>

#include "models/trace_kinds.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// One server holds an advisory lock behind a round-robin pool of four connections kept
// open, and PostgreSQL ends a session idle 3 s. PgBouncer opens the four one at a time once
// the server has connected, so the first two are in use before the last two join the end
// of the idle list; keep-alives a second apart then reach those only after 3 s, and they
// idle out first.
std::string four_session_world(const std::string& job_statements) {
    return R"({"name": "job-statements", "description": "d", "seed": 1, "horizon": "2m",
      "servers": ["server-1"], "network": {"delay": "1ms"},
      "lock": {"store": "db-advisory", "key": "renewals", "idle_session_timeout": "3s",
               "pooler": {"pool_size": 4, "min_pool_size": 4, "server_round_robin": true},
               "job_statements": ")" +
           job_statements + R"("},
      "job": {"name": "renewals", "at": "00:00", "customers": [41, 42, 43, 44, 45, 46], "period": "2026-10",
              "work_per_customer": "1s"},
      "designs": {"d": {}}})";
}

}  // namespace

// On a connection of their own, the job's statements leave the pool to the keep-alives:
// the connections waiting behind the ones in use die idle, the pool reopens them at the end
// of the list, where they die again, and what stays open is what is used, the holding
// session among them. Through the pooler, the job's statements are lent every connection in
// turn, and none idles out.
TEST_CASE("a round-robin pool behind an idle timeout keeps the connections in use, the holding one among them") {
    const auto ended_sessions = [](const std::string& job_statements) {
        const ScenarioOutcome outcome =
            run_scenario(parse_scenario(four_session_world(job_statements), "test.json", metric_names()), 1);
        const auto& design = design_named(outcome, "d");
        CHECK(events_of(design.trace, trace_kind::lock_expired).empty());
        CHECK(design.metrics.value(Metric::charges) == 6);
        std::vector<std::int64_t> ended;
        for (const auto* session : events_of(design.trace, trace_kind::db_session_ended))
            ended.push_back(session->integer("session"));
        return ended;
    };
    const auto own_connection = ended_sessions("own-connection");
    REQUIRE(own_connection.size() >= 2);
    for (const std::int64_t session : own_connection) CHECK(session >= 3);  // never 1 (the lock's) or 2
    CHECK(ended_sessions("lock-session").empty());
}

TEST_CASE("job statements through the pooler are lent sessions as the lock's statements are") {
    const auto lends = [](const std::string& job_statements) {
        const ScenarioOutcome outcome =
            run_scenario(parse_scenario(four_session_world(job_statements), "test.json", metric_names()), 1);
        return events_of(design_named(outcome, "d").trace, trace_kind::pooler_lent.name).size();
    };
    // Six customers: at least a read and a record of the charge each, on top of the lock's own.
    CHECK(lends("lock-session") >= lends("own-connection") + 12);
}

TEST_CASE("the loader takes job_statements for database locks only") {
    const std::string world = R"({"name": "x", "description": "d", "seed": 1, "horizon": "1m",
      "servers": ["server-1"], "network": {"delay": "1ms"},
      "job": {"name": "renewals", "at": "00:00", "customers": [1], "period": "p", "work_per_customer": "1s"},
      "designs": {"d": {}}, "lock": )";
    CHECK(error_of(world + R"({"store": "db-for-update", "key": "k", "job_statements": "lock-session"}})") ==
          "no error");
    CHECK(error_of(world + R"({"store": "db-advisory", "key": "k", "job_statements": "own-connection"}})") ==
          "no error");
    CHECK(says(error_of(world + R"({"store": "redis", "key": "k", "ttl": "10s", "job_statements": "lock-session"}})"),
               "/lock/job_statements: \"job_statements\" is an option of db-advisory and db-for-update"));
    CHECK(says(error_of(world + R"({"store": "db-advisory", "key": "k", "job_statements": "pooled"}})"),
               "/lock/job_statements: unknown \"pooled\""));
}

namespace {

// A FOR UPDATE holder whose job writes on the lock's session, frozen at 6 s for 40 s while
// preparing customer 42; PostgreSQL ends a session idle 10 s inside a transaction.
std::string frozen_for_update_holder(const std::string& job_statements) {
    return R"({"name": "rollback", "description": "d", "seed": 1, "horizon": "5m",
      "servers": ["server-1", "server-2"], "network": {"delay": "1ms"},
      "lock": {"store": "db-for-update", "key": "renewals", "idle_in_transaction_timeout": "10s",
               "job_statements": ")" +
           job_statements + R"("},
      "job": {"name": "renewals", "at": "00:00", "customers": [41, 42, 43], "period": "2026-10",
              "work_per_customer": "4s"},
      "faults": [{"pause": "server-1", "at": "6s", "for": "40s", "kind": "gc"}],
      "designs": {"d": {}}})";
}

const DesignOutcome& frozen_holder_run(const ScenarioOutcome& outcome) {
    return design_named(outcome, "d");
}

}  // namespace

TEST_CASE("FOR UPDATE: the job's writes inside the transaction roll back with its session, due again") {
    const ScenarioOutcome outcome =
        run_scenario(parse_scenario(frozen_for_update_holder("lock-session"), "test.json", metric_names()), 1);
    const auto& run = frozen_holder_run(outcome);
    const auto rolled_back = events_of(run.trace, trace_kind::db_rolled_back.name);
    REQUIRE(rolled_back.size() == 1);  // customer 41's 'charged', written inside the transaction
    CHECK(rolled_back[0]->integer("customer") == 41);
    CHECK(rolled_back[0]->text("status") == "due");
    CHECK(run.trace.node_name(rolled_back[0]->node_ref("client")) == "server-1");
    CHECK(rolled_back[0]->at == Instant{} + milliseconds(14'011));  // the session's end, at its idle timeout
    // The provider's charge does not roll back: server 2 finds 41 due and charges it again,
    // and server 1's own UPDATE after waking fails on the connection the database closed.
    CHECK(run.metrics.value(Metric::double_charges) == 2);
    CHECK(run.metrics.value(Metric::double_applies) == 0);  // 41's first 'charged' never stood
    bool failed_on_the_closed_session = false;
    for (const auto& event : run.trace.events())
        if (event.kind == trace_kind::job_error.name && run.trace.node_name(event.node) == "server-1")
            failed_on_the_closed_session =
                std::string(event.text("error")).find("had ended the lock's session") != std::string::npos;
    CHECK(failed_on_the_closed_session);
}

TEST_CASE("on a connection of its own the job's writes commit as they run and stay when the session ends") {
    const ScenarioOutcome outcome =
        run_scenario(parse_scenario(frozen_for_update_holder("own-connection"), "test.json", metric_names()), 1);
    const auto& run = frozen_holder_run(outcome);
    CHECK(events_of(run.trace, trace_kind::db_rolled_back.name).empty());
    CHECK(run.metrics.value(Metric::double_charges) == 1);  // only 42, which server 1 charges on waking
}

TEST_CASE("a COMMIT keeps what the transaction wrote: a holder that releases in time rolls nothing back") {
    std::string world = frozen_for_update_holder("lock-session");
    const std::string fault = R"([{"pause": "server-1", "at": "6s", "for": "40s", "kind": "gc"}])";
    world.replace(world.find(fault), fault.size(), "[]");
    const ScenarioOutcome outcome = run_scenario(parse_scenario(world, "test.json", metric_names()), 1);
    const auto& run = frozen_holder_run(outcome);
    CHECK(events_of(run.trace, trace_kind::db_rolled_back.name).empty());
    CHECK(run.metrics.value(Metric::charges) == 3);
    CHECK(run.metrics.value(Metric::double_charges) == 0);
    int charged_rows_read_by_server_2 = 0;
    for (const auto& event : run.trace.events())
        if (event.kind == trace_kind::db_read.name && event.text("status") == "charged")
            ++charged_rows_read_by_server_2;
    CHECK(charged_rows_read_by_server_2 == 3);  // server 2 sees the committed rows and skips them
}

TEST_CASE("pg_try_advisory_xact_lock with skip: COMMIT releases it, and a session's end rolls back its writes") {
    const std::string world = R"({"name": "xact", "description": "d", "seed": 1, "horizon": "5m",
      "servers": ["server-1", "server-2"], "network": {"delay": "1ms"},
      "lock": {"store": "db-advisory", "key": "renewals", "scope": "transaction",
               "idle_in_transaction_timeout": "10s", "job_statements": "lock-session"},
      "job": {"name": "renewals", "at": "00:00", "customers": [41, 42, 43], "period": "2026-10",
              "work_per_customer": "4s", "on_refused": "skip"},
      "faults": [{"pause": "server-1", "at": "6s", "for": "40s", "kind": "gc"}],
      "designs": {"paused": {}, "no-fault": {"faults": []}}})";
    const ScenarioOutcome outcome = run_scenario(parse_scenario(world, "test.json", metric_names()), 1);

    const auto& calm = design_named(outcome, "no-fault");
    const auto granted = events_of(calm.trace, trace_kind::lock_granted.name);
    REQUIRE(granted.size() == 1);  // server 2 was refused and skipped its run
    CHECK(calm.trace.node_name(granted[0]->node_ref("holder")) == "server-1");
    const auto released = events_of(calm.trace, trace_kind::lock_released.name);
    REQUIRE(released.size() == 1);  // at the COMMIT that ends the transaction
    CHECK(calm.metrics.value(Metric::charges) == 3);
    CHECK(calm.metrics.value(Metric::locks_leaked) == 0);

    // Frozen inside its transaction, the holder's session ends at the idle-in-transaction
    // timeout, not the idle-session one, and customer 41's record rolls back.
    const auto& paused = design_named(outcome, "paused");
    const auto rolled_back = events_of(paused.trace, trace_kind::db_rolled_back.name);
    REQUIRE(rolled_back.size() == 1);
    CHECK(rolled_back[0]->integer("customer") == 41);
    const auto ended = events_of(paused.trace, trace_kind::db_session_ended.name);
    REQUIRE(ended.size() == 1);
    CHECK(ended[0]->text("reason") == "idle-in-transaction timeout");
    CHECK(paused.metrics.value(Metric::items_not_done) == 1);  // 43: server 2 had skipped its run
}

TEST_CASE("the loader takes scope for an advisory lock only, and not through the pooler") {
    const std::string world = R"({"name": "n", "description": "d", "seed": 1, "servers": ["server-1"],
      "job": {"name": "renewals", "at": "00:00", "customers": [1], "period": "2026-10"}, "designs": {"d": {}},
      "lock": )";
    CHECK(says(error_of(world + R"({"store": "db-for-update", "key": "k", "scope": "transaction"}})"),
               "/lock/scope: \"scope\" is an option of db-advisory"));
    CHECK(says(error_of(world + R"({"store": "db-advisory", "key": "k", "scope": "statement"}})"),
               "/lock/scope: unknown scope \"statement\""));
    CHECK(says(error_of(world + R"({"store": "db-advisory", "key": "k", "scope": "transaction", "pooler": {}}})"),
               "/lock/scope: a transaction's advisory lock through PgBouncer is not modelled"));
}
