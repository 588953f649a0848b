// models/provider_client.cpp: the job's HTTP client of the payment provider, with a
// request timeout and retries (job.charge_request). A charge that outlives its timeout
// may still arrive, or may have charged and lost only its reply: retried without an
// idempotency key, it charges twice under a lock held throughout.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "models/trace_kinds.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::time_literals;
using locksim::testing::design_named;

namespace {

// One server, one customer, a lock nobody else wants; the network holds back the charge
// requests sent between 4 and 5 s by `held_back`, and the client is `charge_request`
// (none: no timeout).
std::string one_slow_charge(const std::string& charge_request, const std::string& held_back,
                            const std::string& key = "") {
    return R"({
      "name": "slow-charge", "description": "One charge, held back on the network.", "seed": 1, "horizon": "10m",
      "servers": ["server-1"],
      "network": {"delay": "1ms"},
      "lock": {"store": "redis", "key": "lock:renewals", "ttl": "10m"},
      "job": {"name": "renewals", "at": "00:00", "customers": [41], "period": "2026-10",
              "work_per_customer": "4s")" +
           (charge_request.empty() ? "" : R"(, "charge_request": )" + charge_request) +
           R"(},)" + (key.empty() ? "" : R"(
      "idempotency_key": ")" + key + R"(",)") +
           R"(
      "faults": [{"delay_spike": ["server-1", "payment-provider"], "at": "4s", "for": "1s", "extra": ")" +
           held_back + R"(", "one_way": true}],
      "designs": {"only": {}}
    })";
}

DesignOutcome run_text(const std::string& text) {
    const Scenario scenario = parse_scenario(text, "slow-charge.json", metric_names());
    return design_named(run_scenario(scenario, scenario.seed), "only");
}

std::vector<Instant> timeout_times(const DesignOutcome& run, const std::string& kind) {
    std::vector<Instant> times;
    for (const auto* event : events_of(run.trace, kind)) times.push_back(event->at);
    return times;
}

}  // namespace

TEST_CASE("a charge held back past the client's timeout is sent again and charges twice without a key") {
    const auto run = run_text(one_slow_charge(R"({"timeout": "2s", "retries": 1, "backoff": "1s"})", "4s"));
    const auto timed_out = events_of(run.trace, trace_kind::job_charge_timed_out.name);
    REQUIRE(timed_out.size() == 1);
    CHECK(timed_out[0]->integer("attempt") == 1);
    CHECK(timed_out[0]->flag("retrying"));
    CHECK(timed_out[0]->duration("timeout") == 2_s);
    // The retry, sent after 2 s of waiting and 1 s of backoff, queues behind the held
    // request on the link: both arrive 4 s after the first was sent, and both charge.
    const auto charged = events_of(run.trace, trace_kind::provider_charged.name);
    REQUIRE(charged.size() == 2);
    CHECK(charged[0]->at >= at(4_s + 4_s));
    CHECK(charged[1]->at >= at(4_s + 4_s));
    CHECK(run.metrics.value("double_charges") == 1);
    CHECK(run.metrics.value("overlapping_holders") == 0);
}

TEST_CASE("a retry on a new connection goes beside the held request rather than behind it") {
    // The first request is sent at 4 s and held 20 s. The retry leaves at 4 + 2 + 1 = 7 s.
    const auto same =
        run_text(one_slow_charge(R"({"timeout": "2s", "retries": 1, "backoff": "1s", "connection": "same"})", "20s"));
    const auto fresh =
        run_text(one_slow_charge(R"({"timeout": "2s", "retries": 1, "backoff": "1s", "connection": "new"})", "20s"));
    // One connection: the retry waits behind the held request, its reply comes too late,
    // and the job gives up; both requests charge when the hold ends.
    const auto same_charged = events_of(same.trace, trace_kind::provider_charged.name);
    REQUIRE(same_charged.size() == 2);
    CHECK(same_charged[0]->at >= at(24_s));
    CHECK(same_charged[1]->at >= at(24_s));
    CHECK(events_of(same.trace, trace_kind::job_charge_timed_out.name).size() == 2);
    // A new connection: the retry arrives at once and is answered in time; the held
    // request charges again when it lands.
    const auto fresh_charged = events_of(fresh.trace, trace_kind::provider_charged.name);
    REQUIRE(fresh_charged.size() == 2);
    CHECK(fresh_charged[0]->at >= at(7_s));
    CHECK(fresh_charged[0]->at < at(7_s + 100_ms));
    CHECK(fresh_charged[1]->at >= at(24_s));
    CHECK(events_of(fresh.trace, trace_kind::job_charge_timed_out.name).size() == 1);
    CHECK(fresh.metrics.value("double_charges") == 1);
    // Leaving it out is "same", as before the choice existed.
    const auto unsaid = run_text(one_slow_charge(R"({"timeout": "2s", "retries": 1, "backoff": "1s"})", "20s"));
    CHECK(events_of(unsaid.trace, trace_kind::provider_charged.name).size() == 2);
    CHECK(events_of(unsaid.trace, trace_kind::provider_charged.name)[0]->at == same_charged[0]->at);
}

TEST_CASE("a retry connection other than same or new is refused") {
    CHECK_THROWS_WITH(run_text(one_slow_charge(R"({"timeout": "2s", "retries": 1, "connection": "fresh"})", "1s")),
                      Catch::Contains("/job/charge_request/connection: unknown value \"fresh\"; expected \"same\" or "
                                      "\"new\""));
}

TEST_CASE("the same retry with an idempotency key is answered with the first charge") {
    const auto run = run_text(
        one_slow_charge(R"({"timeout": "2s", "retries": 1, "backoff": "1s"})", "4s", "renewal-{customer}-{period}"));
    CHECK(events_of(run.trace, trace_kind::provider_charged.name).size() == 1);
    CHECK(events_of(run.trace, trace_kind::provider_replayed.name).size() == 1);
    CHECK(run.metrics.value("double_charges") == 0);
}

TEST_CASE("a reply within the timeout is not retried, and without a timeout the client waits for ever") {
    const auto in_time = run_text(one_slow_charge(R"({"timeout": "30s", "retries": 3})", "20s"));
    CHECK(events_of(in_time.trace, trace_kind::job_charge_timed_out.name).empty());
    CHECK(events_of(in_time.trace, trace_kind::provider_charged.name).size() == 1);
    const auto patient = run_text(one_slow_charge("", "5m"));
    CHECK(events_of(patient.trace, trace_kind::job_charge_timed_out.name).empty());
    CHECK(events_of(patient.trace, trace_kind::provider_charged.name).size() == 1);
}

TEST_CASE("the backoff doubles before each retry, and the job fails after the last one") {
    // Every attempt is held back 20 s (a spike longer than the whole retry schedule), each
    // waited for 1 s: attempts leave at 4, 4+1+2, 7+1+4, 12+1+8 s.
    auto text = one_slow_charge(R"({"timeout": "1s", "retries": 3, "backoff": "2s"})", "20s");
    text.replace(text.find(R"("for": "1s")"), 11, R"("for": "1m")");
    const auto run = run_text(text);
    const auto timed_out = events_of(run.trace, trace_kind::job_charge_timed_out.name);
    REQUIRE(timed_out.size() == 4);
    std::vector<std::int64_t> attempts;
    for (const auto* event : timed_out) attempts.push_back(event->integer("attempt"));
    CHECK(attempts == std::vector<std::int64_t>{1, 2, 3, 4});
    CHECK_FALSE(timed_out[3]->flag("retrying"));
    const auto gave_up_at = [&](std::size_t i) { return (timed_out[i]->at - midnight).ns / 1'000'000; };
    CHECK(gave_up_at(0) == Approx(5'000).margin(20));
    CHECK(gave_up_at(1) == Approx(8'000).margin(20));
    CHECK(gave_up_at(2) == Approx(13'000).margin(20));
    CHECK(gave_up_at(3) == Approx(22'000).margin(20));
    const auto finished = events_of(run.trace, trace_kind::job_finished.name);
    REQUIRE(finished.size() == 1);
    CHECK(finished[0]->text("outcome") ==
          "failed: the payment provider did not answer 4 charge requests for customer 41");
    // All four requests arrive in the end: four charges of one customer.
    CHECK(events_of(run.trace, trace_kind::provider_charged.name).size() == 4);
}

TEST_CASE("jitter spreads the retries between backoff and backoff plus jitter, the same for the same seed") {
    const auto text = one_slow_charge(R"({"timeout": "1s", "retries": 2, "backoff": "1s", "jitter": "800ms"})", "20s");
    const auto first = run_text(text);
    const auto timed_out = events_of(first.trace, trace_kind::job_charge_timed_out.name);
    REQUIRE(timed_out.size() == 3);
    // Between two timeouts: the backoff with its jitter, then the second attempt's 1 s.
    const Duration waited = timed_out[1]->at - timed_out[0]->at - 1_s;
    CHECK(waited >= 1_s);
    CHECK(waited <= 1_s + 800_ms);
    const auto kind = std::string(trace_kind::job_charge_timed_out.name);
    CHECK(timeout_times(first, kind) == timeout_times(run_text(text), kind));
}
