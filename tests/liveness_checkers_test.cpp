// The newer checkers, fed traces written by hand: double applies at the database,
// duplicated index builds, liveness (stalls after a holder's crash, waits for the lock,
// refusals, job runs), and the work still pending when a run ends. They read only the trace.
#include <catch2/catch.hpp>

#include "tests/support.hpp"
#include "tests/trace_builder.hpp"

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "sim/engine.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

Instant t(Duration since_start) {
    return Instant{} + since_start;
}

RunMetrics waits_of(const TraceBuilder& b, Duration run_end) {
    RunMetrics metrics;
    measure_waits(b.trace(), t(run_end), metrics);
    return metrics;
}

}  // namespace

// --- double applies -------------------------------------------------------------------

TEST_CASE("double applies: a renewal row set to charged by a second server is one double apply, counted not flagged") {
    // Counted, not marked as a violation: the row's write sets the same status again, so
    // whether it hurt is a question for the money (double_charges), which is flagged.
    TraceBuilder b;
    b.write(1_s, server_1, 42, "charged", 1).write(2_s, server_2, 42, "charged", 1);
    RunMetrics metrics;
    count_double_applies(b.trace(), metrics);
    CHECK(metrics.value(Metric::double_applies) == 1);
    CHECK(metrics.flagged.empty());
    CHECK(check_trace(b.trace(), t(10_s)).value("double_applies") == 1);
}

TEST_CASE("double applies: the same server writing the row twice is not a double apply") {
    TraceBuilder b;
    b.write(1_s, server_1, 42, "charged", 1).write(2_s, server_1, 42, "charged", 1);
    RunMetrics metrics;
    count_double_applies(b.trace(), metrics);
    CHECK(metrics.value(Metric::double_applies) == 0);
    CHECK(metrics.flagged.empty());
}

TEST_CASE("double applies: a write that changed no row does not count") {
    TraceBuilder b;
    b.write(1_s, server_1, 42, "charged", 1).write(2_s, server_2, 42, "charged", 0);
    RunMetrics metrics;
    count_double_applies(b.trace(), metrics);
    CHECK(metrics.value(Metric::double_applies) == 0);
    CHECK(metrics.flagged.empty());
}

TEST_CASE("double applies: a zero-row write does not make its server a writer of the row") {
    // server-2's refused write does not make it a writer of the row: when it then charges
    // after server-1, that is the second writer, counted once.
    TraceBuilder b;
    b.write(1_s, server_2, 42, "charged", 0)
        .write(2_s, server_1, 42, "charged", 1)
        .write(3_s, server_2, 42, "charged", 1);
    RunMetrics metrics;
    count_double_applies(b.trace(), metrics);
    CHECK(metrics.value(Metric::double_applies) == 1);
}

TEST_CASE("double applies: a claim by a second server is not a double apply, only status charged is") {
    TraceBuilder b;
    b.write(1_s, server_1, 42, "charged", 1)
        .write(2_s, server_2, 42, "claimed", 1)
        .write(3_s, server_3, 42, "claimed", 1);
    RunMetrics metrics;
    count_double_applies(b.trace(), metrics);
    CHECK(metrics.value(Metric::double_applies) == 0);
}

TEST_CASE("double applies: other customers and other periods are other rows") {
    TraceBuilder b;
    b.write(1_s, server_1, 42, "charged", 1)
        .write(2_s, server_2, 43, "charged", 1)
        .write(3_s, server_3, 42, "charged", 1, "2026-11");
    RunMetrics metrics;
    count_double_applies(b.trace(), metrics);
    CHECK(metrics.value(Metric::double_applies) == 0);
}

TEST_CASE("double applies: every server after the first counts once, a server writing again does not") {
    // Three servers without a lock: 2 double applies per row, as unique-constraint.json's
    // "no-lock" design expects 6 for 3 customers.
    TraceBuilder b;
    b.write(1_s, server_1, 42, "charged", 1)
        .write(2_s, server_2, 42, "charged", 1)
        .write(3_s, server_1, 42, "charged", 1)
        .write(4_s, server_3, 42, "charged", 1);
    RunMetrics metrics;
    count_double_applies(b.trace(), metrics);
    CHECK(metrics.value(Metric::double_applies) == 2);
}

TEST_CASE("double applies: a fenced write with a token counts like any other") {
    TraceBuilder b;
    b.at(1_s, billing, trace_kind::db_write,
         {{"customer", std::int64_t{42}},
          {"period", "2026-10"},
          {"status", "charged"},
          {"rows", std::int64_t{1}},
          {"client", server_1},
          {"token", std::int64_t{33}}});
    b.at(2_s, billing, trace_kind::db_write,
         {{"customer", std::int64_t{42}},
          {"period", "2026-10"},
          {"status", "charged"},
          {"rows", std::int64_t{1}},
          {"client", server_2},
          {"token", std::int64_t{34}}});
    RunMetrics metrics;
    count_double_applies(b.trace(), metrics);
    CHECK(metrics.value(Metric::double_applies) == 1);
}

// --- duplicate work -------------------------------------------------------------------

TEST_CASE("duplicate work: the second build of a period counts its processor time, the first does not") {
    TraceBuilder b;
    b.built(66_s, server_2, "2026-10-01T03", 35_s).built(75_s, server_1, "2026-10-01T03", 35_s);
    RunMetrics metrics;
    measure_duplicate_work(b.trace(), metrics);
    CHECK(metrics.duplicate_work == 35_s);
    REQUIRE(metrics.flagged.size() == 1);
    CHECK(metrics.flagged[0].sequence == 1);
    CHECK(metrics.flagged[0].violation());
    CHECK(metrics.flagged[0].explanation == "index for 2026-10-01T03 built again: 35s of processor time wasted");
    CHECK(check_trace(b.trace(), t(100_s)).value("duplicate_work_ms") == 35000);
}

TEST_CASE("duplicate work: one build per period wastes nothing") {
    TraceBuilder b;
    b.built(10_s, server_1, "2026-10-01T03", 35_s).built(20_s, server_1, "2026-10-01T04", 35_s);
    RunMetrics metrics;
    measure_duplicate_work(b.trace(), metrics);
    CHECK(metrics.duplicate_work == 0_s);
    CHECK(metrics.flagged.empty());
    CHECK(check_trace(b.trace(), t(100_s)).value("duplicate_work_ms") == 0);
}

TEST_CASE("duplicate work: every build after the first adds its own processor time, whoever built first") {
    TraceBuilder b;
    b.built(10_s, server_1, "P", 10_s).built(20_s, server_2, "P", 20_s).built(30_s, server_3, "P", 1500_ms);
    RunMetrics metrics;
    measure_duplicate_work(b.trace(), metrics);
    CHECK(metrics.duplicate_work == 21500_ms);
    CHECK(metrics.flagged.size() == 2);
    CHECK(check_trace(b.trace(), t(100_s)).value("duplicate_work_ms") == 21500);
}

TEST_CASE("duplicate work: the same server building the same period twice wastes the second build too") {
    TraceBuilder b;
    b.built(10_s, server_1, "P", 7_s).built(20_s, server_1, "P", 7_s);
    RunMetrics metrics;
    measure_duplicate_work(b.trace(), metrics);
    CHECK(metrics.duplicate_work == 7_s);
}

// --- stalls ---------------------------------------------------------------------------

TEST_CASE("stall: from the holder's crash to the next grant on another node") {
    TraceBuilder b;
    b.acquired(0_s, server_1).crashed(10_s, server_1).acquired(25_s, server_2);
    const auto metrics = waits_of(b, 100_s);
    CHECK(metrics.longest_stall == 15_s);
    CHECK(check_trace(b.trace(), t(100_s)).value("stall_ms") == 15000);
}

TEST_CASE("stall: the crash of a server that does not hold the lock starts no stall") {
    TraceBuilder b;
    b.acquired(0_s, server_1).crashed(10_s, server_2).acquired(25_s, server_3);
    CHECK(waits_of(b, 100_s).longest_stall == 0_s);
    // Nor does it stay open until the end of the run when nobody is granted afterwards.
    TraceBuilder alone;
    alone.acquired(0_s, server_1).crashed(10_s, server_2);
    CHECK(waits_of(alone, 100_s).longest_stall == 0_s);
}

TEST_CASE("stall: a holder that released before it crashed starts no stall") {
    TraceBuilder b;
    b.acquired(0_s, server_1).ended(5_s, server_1).crashed(10_s, server_1);
    CHECK(waits_of(b, 100_s).longest_stall == 0_s);
}

TEST_CASE("stall: a stall still open when the run ends counts to the run's end") {
    TraceBuilder b;
    b.acquired(0_s, server_1).crashed(10_s, server_1);
    CHECK(waits_of(b, 60_s).longest_stall == 50_s);
    CHECK(check_trace(b.trace(), t(60_s)).value("stall_ms") == 50000);
}

TEST_CASE("stall: the longest of several stalls is kept") {
    TraceBuilder b;
    b.acquired(0_s, server_1)
        .crashed(10_s, server_1)
        .acquired(15_s, server_2)  // 5s
        .crashed(20_s, server_2)
        .acquired(32_s, server_3)  // 12s
        .crashed(40_s, server_3)
        .acquired(47_s, server_1);  // 7s
    CHECK(waits_of(b, 100_s).longest_stall == 12_s);
}

TEST_CASE("stall: a second holder crashing during a stall does not restart it") {
    // Two believers at once (an overlap); both crash; the stall runs from the first crash.
    TraceBuilder b;
    b.acquired(0_s, server_1)
        .acquired(5_s, server_2)
        .crashed(10_s, server_1)
        .crashed(20_s, server_2)
        .acquired(30_s, server_3);
    CHECK(waits_of(b, 100_s).longest_stall == 20_s);
}

TEST_CASE("stall: the crashed holder itself taking the lock again ends the stall") {
    TraceBuilder b;
    b.acquired(0_s, server_1).crashed(10_s, server_1).acquired(18_s, server_1);
    CHECK(waits_of(b, 100_s).longest_stall == 8_s);
}

// --- waits ----------------------------------------------------------------------------

TEST_CASE("wait: from a job's start to its server holding the lock, the longest across servers") {
    TraceBuilder b;
    b.job_started(0_s, server_1).job_started(0_s, server_2).job_started(1_s, server_3);
    b.acquired(0_s, server_1)
        .ended(7_s, server_1)
        .acquired(7_s, server_2)
        .ended(20_s, server_2)
        .acquired(21_s, server_3);
    const auto metrics = waits_of(b, 100_s);
    CHECK(metrics.longest_wait == 20_s);
    CHECK(check_trace(b.trace(), t(100_s)).value("longest_wait_ms") == 20000);
}

TEST_CASE("wait: a leader that already believes when its job starts does not wait") {
    TraceBuilder b;
    b.acquired(0_s, server_1).job_started(60_s, server_1);
    CHECK(waits_of(b, 100_s).longest_wait == 0_s);
    // Its belief later ending does not make it wait either.
    b.ended(70_s, server_1);
    CHECK(waits_of(b, 100_s).longest_wait == 0_s);
}

TEST_CASE("wait: a job still waiting when the run ends waits until the end") {
    TraceBuilder b;
    b.acquired(0_s, server_1).job_started(10_s, server_2);
    CHECK(waits_of(b, 50_s).longest_wait == 40_s);
    CHECK(check_trace(b.trace(), t(50_s)).value("longest_wait_ms") == 40000);
}

TEST_CASE("wait: a crash cancels the crashed server's wait") {
    TraceBuilder b;
    b.acquired(0_s, server_1).job_started(0_s, server_2).crashed(5_s, server_2);
    CHECK(waits_of(b, 100_s).longest_wait == 0_s);
    // Coming back and being granted later without starting the job again is no wait.
    b.acquired(80_s, server_2);
    CHECK(waits_of(b, 100_s).longest_wait == 0_s);
}

TEST_CASE("wait: a server whose belief ended before its job started waits again") {
    TraceBuilder b;
    b.acquired(0_s, server_1).ended(5_s, server_1).job_started(10_s, server_1).acquired(13_s, server_1);
    CHECK(waits_of(b, 100_s).longest_wait == 3_s);
}

TEST_CASE("wait: with no job at all nothing waits") {
    TraceBuilder b;
    b.acquired(0_s, server_1).acquired(5_s, server_2);
    CHECK(waits_of(b, 100_s).longest_wait == 0_s);
}

// --- refusals and job runs ------------------------------------------------------------

TEST_CASE("lock refusals count every refused attempt, first attempts included") {
    TraceBuilder b;
    b.refused(0_s, server_2).refused(0_s, server_3).refused(1_s, server_2);
    const auto metrics = waits_of(b, 10_s);
    CHECK(metrics.value(Metric::lock_refusals) == 3);
    const auto all = check_trace(b.trace(), t(10_s));
    CHECK(all.value("lock_refusals") == 3);
    CHECK(all.value("peak_retries_per_ms") == 1);  // the retry storm checker ignores first attempts
}

TEST_CASE("job runs count the jobs that started, finished or not") {
    TraceBuilder b;
    b.job_started(0_s, server_1).job_started(0_s, server_2);
    b.at(60_s, server_3, trace_kind::job_finished, {{"job", "renewals"}, {"outcome", "skipped: not the leader"}});
    CHECK(waits_of(b, 100_s).value(Metric::job_runs) == 2);
    CHECK(check_trace(b.trace(), t(100_s)).value("job_runs") == 2);
}

// --- work pending at the run's end ---------------------------------------------------

namespace {

std::vector<PendingWork> pending_of(const TraceBuilder& b) {
    RunMetrics metrics;
    find_pending_work(b.trace(), metrics);
    return metrics.pending;
}

TraceBuilder& job_finished(TraceBuilder& b, Duration when, NodeId node) {
    return b.at(when, node, trace_kind::job_finished, {{"job", "renewals"}, {"outcome", "done"}});
}

TraceBuilder& timed_out(TraceBuilder& b, Duration when, NodeId node, std::int64_t attempt, bool retrying) {
    return b.at(when, node, trace_kind::job_charge_timed_out,
                {{"customer", std::int64_t{42}},
                 {"period", "2026-10"},
                 {"attempt", attempt},
                 {"timeout", 5_s},
                 {"retrying", retrying}});
}

}  // namespace

TEST_CASE("pending work: a job run that started and had not ended is pending, with its start and its pause") {
    TraceBuilder b;
    b.job_started(0_s, server_1).job_started(1_s, server_2);
    job_finished(b, 9_s, server_2);
    b.at(6_s, server_1, trace_kind::node_paused, {{"for", 40_s}, {"cause", "gc"}});
    const auto pending = pending_of(b);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].server == server_1);
    CHECK(pending[0].since == t(0_s));
    CHECK_FALSE(pending[0].customer);
    CHECK(pending[0].frozen_since == t(6_s));
    CHECK(describe_pending(pending[0], b.trace()) == "server-1's job run (started at 0.000s; frozen since 6.000s)");
}

TEST_CASE("pending work: a crash ends its server's job run for good, and a finished run leaves nothing") {
    TraceBuilder b;
    b.job_started(0_s, server_1).crashed(5_s, server_1).job_started(0_s, server_2);
    job_finished(b, 20_s, server_2);
    CHECK(pending_of(b).empty());
}

TEST_CASE("pending work: a recurring job between its ticks has nothing pending") {
    TraceBuilder b;
    for (int run = 0; run < 3; ++run) {
        b.job_started(seconds(60 * run), server_1);
        job_finished(b, seconds(60 * run + 8), server_1);
    }
    CHECK(pending_of(b).empty());
}

TEST_CASE("pending work: a charge request whose client gave up, and that never reached the provider, is pending") {
    TraceBuilder b;
    b.job_started(0_s, server_1);
    timed_out(b, 10_s, server_1, 1, false);
    job_finished(b, 10_s, server_1);
    const auto pending = pending_of(b);
    REQUIRE(pending.size() == 1);
    CHECK(pending[0].customer == 42);
    CHECK(pending[0].since == t(10_s));
    CHECK(describe_pending(pending[0], b.trace()) ==
          "server-1's charge request for customer 42 (2026-10), timed out at 10.000s and not yet at the payment "
          "provider");
    b.charge(70_s, 42, server_1);  // it arrives late
    CHECK(pending_of(b).empty());
}

TEST_CASE("pending work: a retried charge answered while the first request still travels leaves the first pending") {
    // 1. attempt 1 times out and the client retries; 2. attempt 2 reaches the provider and is
    // answered, the job ends; 3. attempt 1 is still on its way: it may charge a second time.
    TraceBuilder b;
    b.job_started(0_s, server_1);
    timed_out(b, 5_s, server_1, 1, true);
    b.charge(6_s, 42, server_1);
    job_finished(b, 7_s, server_1);
    REQUIRE(pending_of(b).size() == 1);
    b.charge(40_s, 42, server_1);
    CHECK(pending_of(b).empty());
    // Another server's charge, or another period's, is not this request arriving.
    TraceBuilder other;
    timed_out(other, 5_s, server_1, 1, false);
    other.charge(6_s, 42, server_2);
    CHECK(pending_of(other).size() == 1);
}

TEST_CASE("pending work: a request that reached the provider before its reply timed out is not pending") {
    TraceBuilder b;
    b.job_started(0_s, server_1);
    b.charge(1_s, 42, server_1);  // the reply is what was slow
    timed_out(b, 5_s, server_1, 1, true);
    b.charge(7_s, 42, server_1);  // the retry
    job_finished(b, 8_s, server_1);
    CHECK(pending_of(b).empty());
}

TEST_CASE("unfinished: a run that ended with work pending, cut by its horizon or hung on a reply, is a violation") {
    TraceBuilder b;
    b.job_started(0_s, server_1);
    const RunMetrics metrics = check_trace(b.trace(), t(30_s));
    CHECK(metrics.pending.size() == 1);
    CHECK(unfinished(metrics));
    CHECK(metrics.value(Metric::unfinished_work) == 1);
    REQUIRE(metrics.flagged.size() == 1);
    CHECK(metrics.flagged[0].violation());
    CHECK(metrics.flagged[0].sequence == 0);  // the job run that never ended
    CHECK(metrics.flagged[0].explanation == "server-1's job run (started at 0.000s): never finished by the run's end");
    CHECK(metrics.first_violation == t(30_s));  // known only at the end
    job_finished(b, 20_s, server_1);
    const RunMetrics finished = check_trace(b.trace(), t(30_s));  // a tick or heartbeat due: nothing pending
    CHECK_FALSE(unfinished(finished));
    CHECK(finished.value(Metric::unfinished_work) == 0);
    CHECK(finished.flagged.empty());
}

TEST_CASE("an empty trace measures zero for every liveness metric") {
    TraceBuilder b;
    const auto metrics = check_trace(b.trace(), t(100_s));
    for (const char* name :
         {"stall_ms", "longest_wait_ms", "lock_refusals", "job_runs", "duplicate_work_ms", "double_applies"})
        CHECK(metrics.value(name) == 0);
}

// --- the metric table -----------------------------------------------------------------

TEST_CASE("every metric has a meaning, and no name is listed twice") {
    const auto& names = metric_names();
    std::set<std::string> unique(names.begin(), names.end());
    CHECK(unique.size() == names.size());
    for (const auto& name : names) {
        INFO(name);
        REQUIRE(find_metric(name) != nullptr);
        CHECK_FALSE(find_metric(name)->meaning.empty());
    }
    for (const char* added :
         {"double_applies", "duplicate_work_ms", "stall_ms", "longest_wait_ms", "lock_refusals", "job_runs"})
        CHECK(unique.count(added) == 1);
    CHECK(find_metric("no_such_metric") == nullptr);
}

TEST_CASE("asking for a metric that does not exist is a bug, not a zero") {
    TraceBuilder b;
    const auto metrics = check_trace(b.trace(), t(1_s));
    CHECK_THROWS_AS(metrics.value("stall"), std::logic_error);
}

TEST_CASE("check_trace flags duplicated builds and counts double applies without flagging them") {
    TraceBuilder b;
    b.built(1_s, server_1, "P", 5_s)
        .write(2_s, server_1, 42, "charged", 1)
        .built(3_s, server_2, "P", 5_s)
        .write(4_s, server_2, 42, "charged", 1);
    const auto metrics = check_trace(b.trace(), t(10_s));
    REQUIRE(metrics.flagged.size() == 1);
    CHECK(metrics.flagged[0].sequence == 2);
    CHECK(metrics.flag_for(2) != nullptr);
    CHECK(metrics.flag_for(3) == nullptr);
    CHECK(metrics.value(Metric::double_applies) == 1);
}
