// Errors reach the job (models/job_server.cpp, models/billing_client.cpp): a statement past
// the job's read timeout, or on a connection its stream gave up on, is an error the job's
// code sees, and the job's "on_error" decides what follows: fail the run, skip the item,
// or retry the whole job after a backoff. A leader loop ends the tick and reads what is
// still pending at the next.
#include <catch2/catch.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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
    // The client closed its connection at the timeout; seller 103's SELECT goes on a new
    // one, which the cut stalls too, and times out as well.
    CHECK(errors[1]->text("error") == "billing-db did not answer the SELECT for seller 103 within the 2s read timeout");
    CHECK(errors[1]->text("then") == "skip");
    const auto finished = events_of(run.trace, trace_kind::job_finished.name);
    REQUIRE(finished.size() == 1);
    CHECK(finished[0]->text("outcome") == "done");
    // Seller 102 was paid before its UPDATE stalled; seller 103 never was.
    CHECK(run.metrics.value("items_not_done") == 1);
}

TEST_CASE(
    "on_error retry runs the whole job again after the backoff, on a new connection that reads seller 102 unpaid "
    "before the UPDATE the failed run gave up on lands") {
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
    // The failed run closed its connection at its read timeout; the UPDATE it held still
    // lands, at the orphaned stream's try of 14.612 s (2.012 s + 12.6 s), but the retry's
    // SELECT on its new connection read seller 102 as unpaid at 14.0 s: paid twice, as a
    // real driver's retry would.
    std::vector<Instant> recorded_102;
    for (const auto* write : events_of(run.trace, trace_kind::db_write.name))
        if (write->integer("customer") == 102) recorded_102.push_back(write->at);
    REQUIRE(recorded_102.size() == 2);
    CHECK(recorded_102[0] == at(14'613_ms));
    const auto skipped = events_of(run.trace, trace_kind::job_customer_skipped.name);
    REQUIRE(skipped.size() == 1);
    CHECK(skipped[0]->integer("customer") == 101);
    CHECK(run.metrics.value("double_charges") == 1);
    CHECK(run.metrics.value("items_not_done") == 0);
    // An idempotency key makes the retry's second payout a replay of the first.
    std::string with_key =
        cut_off_payouts(R"(, "read_timeout": "2s", "on_error": { "retry": 3, "backoff": "10s" })", "10s");
    const std::string plain = R"("only": {})";
    with_key.replace(with_key.find(plain), plain.size(),
                     R"("only": { "idempotency_key": "payout-{customer}-{period}" })");
    const auto keyed = run_payouts(with_key);
    CHECK(keyed.metrics.value("double_charges") == 0);
    CHECK(events_of(keyed.trace, trace_kind::provider_replayed.name).size() == 1);
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

TEST_CASE(
    "a client that closed its connection at the read timeout orphans the UPDATE: the kernel gives it up after "
    "102.2 s, where a client still waiting gets it through after the heal") {
    const auto written_for_102 = [](const DesignOutcome& run) {
        std::vector<Instant> times;
        for (const auto* write : events_of(run.trace, trace_kind::db_write.name))
            if (write->integer("customer") == 102) times.push_back(write->at);
        return times;
    };
    // Cut off for 200 s. With a read timeout the client closes its connection at 4.012 s;
    // the UPDATE sent at 2.012 s is retransmitted 8 times and dropped at 104.212 s, before
    // the heal, and no one is told: seller 102's payout is never recorded.
    const auto closing = run_payouts(cut_off_payouts(R"(, "read_timeout": "2s", "on_error": "skip")", "200s"));
    const auto closed = events_of(closing.trace, trace_kind::connection_closed.name);
    REQUIRE_FALSE(closed.empty());
    CHECK(closed[0]->at == at(4'012_ms));
    CHECK(closed[0]->integer("orphaned") == 1);
    const auto resets = events_of(closing.trace, trace_kind::connection_reset.name);
    REQUIRE_FALSE(resets.empty());
    CHECK(resets[0]->at == at(2'012_ms) + 102'200_ms);
    CHECK(written_for_102(closing).empty());
    // Without one, the client waits, its stream keeps retransmitting, and the 10th try
    // (204.6 s after the send) finds the link healed: the UPDATE lands at 206.6 s.
    const auto waiting = run_payouts(cut_off_payouts("", "200s"));
    CHECK(events_of(waiting.trace, trace_kind::connection_closed.name).empty());
    const auto written = written_for_102(waiting);
    REQUIRE(written.size() == 1);
    CHECK(written[0] == at(2'012_ms) + 204'600_ms + 1_ms);
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
