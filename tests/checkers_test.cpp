// The checkers read only the trace: these tests hand them traces written by hand.
#include <catch2/catch.hpp>

#include "tests/trace_builder.hpp"

#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

TEST_CASE("a customer charged twice in one period is one double charge, flagged at the second charge") {
    TraceBuilder b;
    b.charge(1_s, 41).charge(2_s, 42).charge(3_s, 42);
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    CHECK(metrics.value(Metric::charges) == 3);
    CHECK(metrics.value(Metric::double_charges) == 1);
    REQUIRE(metrics.double_charged.size() == 1);
    CHECK(metrics.double_charged[0].customer == 42);
    REQUIRE(metrics.flagged.size() == 1);
    CHECK(metrics.flagged[0].sequence == 2);
    CHECK(metrics.flagged[0].violation());
}

TEST_CASE("each charge after the first is flagged with its ordinal in words, then an 11th, a 21st, a 22nd, a 23rd") {
    TraceBuilder b;
    for (int i = 1; i <= 23; ++i) b.charge(Duration{i * 1'000'000'000LL}, 42);
    const auto metrics = check_trace(b.trace(), Instant{} + 30_s);
    REQUIRE(metrics.flagged.size() == 22);
    const auto said = [&](std::size_t charge) { return metrics.flagged[charge - 2].explanation; };
    CHECK_THAT(said(2), Catch::Contains("charged a second time"));
    CHECK_THAT(said(3), Catch::Contains("charged a third time"));
    CHECK_THAT(said(8), Catch::Contains("charged an eighth time"));
    CHECK_THAT(said(10), Catch::Contains("charged a tenth time"));
    CHECK_THAT(said(11), Catch::Contains("charged an 11th time"));
    CHECK_THAT(said(13), Catch::Contains("charged a 13th time"));
    CHECK_THAT(said(21), Catch::Contains("charged a 21st time"));
    CHECK_THAT(said(22), Catch::Contains("charged a 22nd time"));
    CHECK_THAT(said(23), Catch::Contains("charged a 23rd time"));
}

TEST_CASE("a replayed idempotent request is not a charge, and a replay of its own charge suppresses nothing") {
    TraceBuilder b;
    b.charge(1_s, 42).replayed(2_s, 42, "2026-10", "renewal-42-2026-10", 42, "2026-10");
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    CHECK(metrics.value(Metric::charges) == 1);
    CHECK(metrics.value(Metric::double_charges) == 0);
    CHECK(metrics.value(Metric::suppressed_effects) == 0);
    CHECK(metrics.flagged.empty());
}

TEST_CASE("a due charge answered with another period's charge is a suppressed effect, flagged once") {
    TraceBuilder b;
    // Period #1 charged customer 42 with key batch-42; #2 sends the same key, and retries it.
    b.charge(1_s, 42, "2026-10#1", "batch-42")
        .replayed(61_s, 42, "2026-10#2", "batch-42", 42, "2026-10#1")
        .replayed(66_s, 42, "2026-10#2", "batch-42", 42, "2026-10#1");
    const auto metrics = check_trace(b.trace(), Instant{} + 100_s);
    CHECK(metrics.value(Metric::charges) == 1);
    CHECK(metrics.value(Metric::double_charges) == 0);
    CHECK(metrics.value(Metric::suppressed_effects) == 1);
    REQUIRE(metrics.flagged.size() == 1);
    CHECK(metrics.flagged[0].sequence == 1);
    CHECK(metrics.flagged[0].violation());
    CHECK(metrics.flagged[0].explanation ==
          "customer 42 not charged for 2026-10#2: the payment provider returned charge 1, made for 2026-10#1, "
          "because key batch-42 does not tell them apart");
    CHECK(metrics.first_violation == Instant{} + 61_s);
}

TEST_CASE("a charge answered with another customer's charge is suppressed too, and one already made is not") {
    TraceBuilder b;
    b.charge(1_s, 41, "2026-10", "batch")
        .replayed(2_s, 42, "2026-10", "batch", 41, "2026-10")
        .charge(3_s, 43, "2026-10")
        .replayed(4_s, 43, "2026-10", "batch", 41, "2026-10");
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    CHECK(metrics.value(Metric::suppressed_effects) == 1);
    REQUIRE(metrics.flagged.size() == 1);
    CHECK_THAT(metrics.flagged[0].explanation, Catch::StartsWith("customer 42 not charged for 2026-10: the payment "
                                                                 "provider returned charge 1, made for customer 41 "
                                                                 "in 2026-10,"));
}

TEST_CASE("beliefs of two servers that intersect in true time are an overlap, touching ones are not") {
    TraceBuilder b;
    b.belief(0_s, 46_s, server_1).belief(30_s, 38_s, server_2).belief(46_s, 50_s, server_3);
    const auto metrics = check_trace(b.trace(), Instant{} + 60_s);
    REQUIRE(metrics.overlaps.size() == 1);
    CHECK(metrics.overlaps[0].first == server_1);
    CHECK(metrics.overlaps[0].second == server_2);
    CHECK(metrics.overlaps[0].from == Instant{} + 30_s);
    CHECK(metrics.overlaps[0].to == Instant{} + 38_s);
    CHECK(metrics.overlap_time == 8_s);
}

TEST_CASE("a belief never ended counts until the end of the run") {
    TraceBuilder b;
    b.at(0_s, server_1, trace_kind::belief_acquired, {{"key", "k"}});
    b.belief(20_s, 30_s, server_2);
    const auto metrics = check_trace(b.trace(), Instant{} + 25_s);
    REQUIRE(metrics.overlaps.size() == 1);
    CHECK(metrics.overlap_time == 5_s);
}

TEST_CASE("three believers at once count each pair, and the time with two or more once") {
    TraceBuilder b;
    b.belief(0_s, 10_s, server_1).belief(2_s, 8_s, server_2).belief(4_s, 6_s, server_3);
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    CHECK(metrics.overlaps.size() == 3);
    CHECK(metrics.overlap_time == 6_s);
}

TEST_CASE("a fenced write with an older token is stale: refused is the fence working, accepted is a bug") {
    TraceBuilder b;
    b.fenced_write(1_s, 33, 1).fenced_write(2_s, 34, 1).fenced_write(3_s, 33, 0).fenced_write(4_s, 32, 1);
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    CHECK(metrics.value(Metric::stale_writes_rejected) == 1);
    CHECK(metrics.value(Metric::stale_writes_accepted) == 1);
    REQUIRE(metrics.flagged.size() == 2);
    CHECK_FALSE(metrics.flagged[0].violation());
    CHECK(metrics.flagged[1].violation());
}

TEST_CASE("a refused write with the newest token is not counted as stale") {
    TraceBuilder b;
    b.fenced_write(1_s, 34, 1).fenced_write(2_s, 34, 0);
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    CHECK(metrics.value(Metric::stale_writes_rejected) == 0);
    // A claim with the row's own token is refused all the same, and counted as that.
    CHECK(metrics.value(Metric::equal_tokens_refused) == 1);
    CHECK(metrics.value(Metric::claims_refused_once) == 0);
    REQUIRE(metrics.flagged.size() == 1);
    CHECK(
        metrics.flagged[0].explanation ==
        "claim refused: customer 42's row already carried token 34, written at 1.000s, and a claim needs a newer one");
}

TEST_CASE("a claim refused with a token above the row's is a claim-once refusal") {
    TraceBuilder b;
    b.fenced_write(1_s, 34, 1).fenced_write(2_s, 35, 0);
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    CHECK(metrics.value(Metric::claims_refused_once) == 1);
    CHECK(metrics.value(Metric::equal_tokens_refused) == 0);
    CHECK(metrics.value(Metric::stale_writes_rejected) == 0);
}

TEST_CASE("a release by a node that did not hold the lock is a foreign release") {
    TraceBuilder b;
    b.at(1_s, store, trace_kind::lock_released, {{"key", "k"}, {"holder", server_2}, {"by", server_1}});
    b.at(2_s, store, trace_kind::lock_released, {{"key", "k"}, {"holder", server_3}, {"by", server_3}});
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    CHECK(metrics.value(Metric::foreign_releases) == 1);
    REQUIRE(metrics.flagged.size() == 1);
    CHECK(metrics.flagged[0].explanation == "server-1 removed the lock that server-2 held");
}

TEST_CASE("every metric name an expectation may use has a value") {
    TraceBuilder b;
    b.charge(1_s, 42).charge(2_s, 42);
    const auto metrics = check_trace(b.trace(), Instant{} + 10_s);
    for (const auto& name : metric_names()) CHECK(metrics.value(name) >= 0);
    CHECK(metrics.value("double_charges") == 1);
    CHECK(metrics.value("charges") == 2);
}
