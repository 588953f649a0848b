// Errors reach the job (models/job_server.cpp, models/billing_client.cpp): a statement past
// the job's read timeout, or on a connection its stream gave up on, is an error the job's
// code sees, and the job's "on_error" decides what follows: fail the run, skip the item,
// or retry the whole job after a backoff. A leader loop ends the tick and reads what is
// still pending at the next.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>

#include "models/trace_kinds.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::design_named;

namespace {

// One worker pays three sellers, 1 s of work each; from 1.5 s it is cut off from the
// billing database (for `heal_after`, or for good), so the UPDATE that records seller 102
// paid (sent at about 2.01 s) waits on a stream that retransmits.
std::string cut_off_payouts(const std::string& job_fields, const std::string& heal_after,
                            const std::string& horizon = "10m") {
    const std::string heal = heal_after.empty() ? "" : R"(, "heal_after": ")" + heal_after + R"(")";
    return R"({
  "name": "cut-off-payouts", "description": "a statement the partition holds", "seed": 1, "horizon": ")" +
           horizon + R"(",
  "servers": ["worker-1"], "network": { "delay": "1ms" },
  "vocabulary": { "item": "seller", "effect": "payout", "effected": "paid", "provider": "bank" },
  "lock": { "store": "redis", "key": "lock:payouts", "ttl": "30s" },
  "job": { "name": "payouts", "at": "00:00", "customers": [101, 102, 103], "period": "2026-10",
           "work_per_customer": "1s")" +
           job_fields + R"( },
  "faults": [ { "partition": [["worker-1"], ["billing-db"]], "at": "1500ms")" +
           heal + R"( } ],
  "designs": { "only": {} }
})";
}

DesignOutcome run_payouts(const std::string& text) {
    const Scenario scenario = parse_scenario(text, "cut-off-payouts.json", metric_names());
    return design_named(run_scenario(scenario, scenario.seed), "only");
}

}  // namespace

TEST_CASE("a statement past the read timeout fails the run by default, and the item after it is never done") {
    const auto run = run_payouts(cut_off_payouts(R"(, "read_timeout": "2s")", "10s"));
    const auto errors = events_of(run.trace, trace_kind::job_error.name);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]->text("error") == "billing-db did not answer the UPDATE for seller 102 within the 2s read timeout");
    CHECK(errors[0]->integer("customer") == 102);
    CHECK(errors[0]->text("then") == "fail");
    CHECK(errors[0]->at == at(4'012'000_us));  // the UPDATE left at 2.012 s
    const auto finished = events_of(run.trace, trace_kind::job_finished.name);
    REQUIRE(finished.size() == 1);
    CHECK(finished[0]->text("outcome") ==
          "failed: billing-db did not answer the UPDATE for seller 102 within the 2s read timeout");
    // Released in the finally path; seller 103 never reached.
    CHECK(events_of(run.trace, trace_kind::lock_released.name).size() == 1);
    CHECK(run.metrics.value("items_not_done") == 1);
    CHECK(run.metrics.value("unfinished_work") == 0);
}

TEST_CASE("on_error skip leaves each failed item undone and goes on to the next") {
    const auto run = run_payouts(cut_off_payouts(R"(, "read_timeout": "2s", "on_error": "skip")", "10s"));
    const auto errors = events_of(run.trace, trace_kind::job_error.name);
    REQUIRE(errors.size() == 2);
    CHECK(errors[0]->integer("customer") == 102);
    CHECK(errors[0]->text("then") == "skip");
    // Seller 103's SELECT waits behind the UPDATE on the same stream, and times out too.
    CHECK(errors[1]->text("error") == "billing-db did not answer the SELECT for seller 103 within the 2s read timeout");
    CHECK(errors[1]->text("then") == "skip");
    const auto finished = events_of(run.trace, trace_kind::job_finished.name);
    REQUIRE(finished.size() == 1);
    CHECK(finished[0]->text("outcome") == "done");
    // Seller 102 was paid before its UPDATE stalled; seller 103 never was.
    CHECK(run.metrics.value("items_not_done") == 1);
}

TEST_CASE("on_error retry runs the whole job again after the backoff, and it finds what was done") {
    const auto run =
        run_payouts(cut_off_payouts(R"(, "read_timeout": "2s", "on_error": { "retry": 3, "backoff": "10s" })", "10s"));
    const auto errors = events_of(run.trace, trace_kind::job_error.name);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]->text("then") == "retry");
    CHECK(errors[0]->integer("retry") == 1);
    CHECK(errors[0]->duration("retry_in") == 10_s);
    const auto started = events_of(run.trace, trace_kind::job_started.name);
    REQUIRE(started.size() == 2);
    // The failed run ended at 4.014 s (after its release); the retry starts 10 s later.
    CHECK(started[1]->at == at(14'014_ms));
    const auto finished = events_of(run.trace, trace_kind::job_finished.name);
    REQUIRE(finished.size() == 2);
    CHECK(finished[1]->text("outcome") == "done");
    // The UPDATE the first run gave up on still landed after the heal (its stream
    // retransmitted it), so the retry skips seller 102 as paid: nobody paid twice.
    const auto skipped = events_of(run.trace, trace_kind::job_customer_skipped.name);
    REQUIRE(skipped.size() == 2);
    CHECK(skipped[1]->integer("customer") == 102);
    CHECK(run.metrics.value("items_not_done") == 0);
    CHECK(run.metrics.value("double_charges") == 0);
}

TEST_CASE("a retry policy gives up after its last retry, each retry waiting twice the one before") {
    // Cut off for good: every run fails at its first SELECT.
    const auto run = run_payouts(
        cut_off_payouts(R"(, "read_timeout": "2s", "on_error": { "retry": 2, "backoff": "5s" })", "", "2m"));
    const auto errors = events_of(run.trace, trace_kind::job_error.name);
    REQUIRE(errors.size() == 3);
    CHECK(errors[0]->integer("retry") == 1);
    CHECK(errors[0]->duration("retry_in") == 5_s);
    CHECK(errors[1]->integer("retry") == 2);
    CHECK(errors[1]->duration("retry_in") == 10_s);
    CHECK(errors[2]->text("then") == "fail");
    CHECK_FALSE(errors[2]->has("retry"));
    CHECK(events_of(run.trace, trace_kind::job_started.name).size() == 3);
    CHECK(run.metrics.value("items_not_done") == 1);
}

TEST_CASE("a connection whose stream gives up is an error the job sees, not a reply that never comes") {
    // No read timeout: the job waits on the UPDATE until its stream gives up retransmitting
    // (tcp_retries2 = 15, 924.6 s after the send) and the connection is reset.
    const auto run = run_payouts(cut_off_payouts("", "", "30m"));
    const auto resets = events_of(run.trace, trace_kind::connection_reset.name);
    REQUIRE(resets.size() == 1);
    const auto errors = events_of(run.trace, trace_kind::job_error.name);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]->text("error") ==
          "the connection to billing-db was reset before the UPDATE for seller 102 was answered");
    CHECK(errors[0]->at == resets[0]->at);
    CHECK(errors[0]->at > at(926_s));
    CHECK(errors[0]->at < at(927_s));
    CHECK(run.metrics.value("unfinished_work") == 0);
    CHECK(run.metrics.value("items_not_done") == 1);
}

TEST_CASE("a leader loop's statement past its read timeout ends the tick, and the next tick sends what is pending") {
    const std::string scenario = R"({
  "name": "exporters", "description": "a leader cut off from its database for a while",
  "seed": 1, "horizon": "30m", "servers": ["exporter-1"], "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "export", "ttl": "15s" },
  "job": { "kind": "leader-loop", "name": "export", "at": "00:00", "every": "60s", "until": "5m",
           "queue": { "pending": [1, 2] }, "work_per_item": "5s", "read_timeout": "2s" },
  "faults": [ { "partition": [["exporter-1"], ["billing-db"]], "at": "3s", "heal_after": "20s" } ],
  "designs": { "only": {} }
})";
    const auto run = run_payouts(scenario);
    const auto errors = events_of(run.trace, trace_kind::job_error.name);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0]->text("then") == "next tick");
    CHECK(errors[0]->integer("customer") == 1);
    // Still leading, the next tick (after the heal) reads what is pending: item 1's UPDATE
    // landed when its stream retransmitted it, so only item 2 is sent; each is charged once.
    CHECK(events_of(run.trace, trace_kind::job_started.name).size() == 1);
    std::map<std::int64_t, int> charges;
    for (const auto* event : events_of(run.trace, trace_kind::provider_charged.name))
        ++charges[event->integer("customer")];
    CHECK(charges == std::map<std::int64_t, int>{{1, 1}, {2, 1}});
    CHECK(run.metrics.value("items_not_done") == 0);
}
