// job.effect_steps: an item's effect in several writes (write the new index, then delete the
// old segments), each a request a fault can land between. Exactly once holds for each step:
// a step never done leaves the item half done, a step done twice is a double.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <string>

#include "models/trace_kinds.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// Two compactors on a lease row, four tenants, each rewritten in two steps. `extra` adds
// fields to the top level; `faults` replaces the world's.
std::string two_step_world(const std::string& extra, const std::string& faults) {
    return R"({"name": "steps", "description": "d", "seed": 1, "horizon": "5m",
      "vocabulary": {"item": "tenant", "effect": "rewrite", "effected": "rewritten", "provider": "object store",
                     "record": "index"},
      "servers": ["compactor-1", "compactor-2"], "network": {"delay": "1ms"},
      "lock": {"store": "lease-row", "key": "compactor", "ttl": "30s", "first_token": 33},
      "job": {"name": "compaction", "at": "00:00", "customers": [1, 2, 3, 4], "period": "2026-12-07",
              "work_per_customer": "4s", "effect_steps": ["write the new index", "delete the old segments"]},
      )" + extra +
           R"("faults": )" + faults + R"(, "designs": {"d": {}}})";
}

const DesignOutcome& two_step_run(const ScenarioOutcome& outcome) {
    return design_named(outcome, "d");
}

}  // namespace

TEST_CASE("each step of an item's effect is a request of its own, in order, named in the trace") {
    const ScenarioOutcome outcome = run_scenario(parse_scenario(two_step_world("", "[]"), "t.json", metric_names()), 1);
    const auto& run = two_step_run(outcome);
    const auto charged = events_of(run.trace, trace_kind::provider_charged.name);
    REQUIRE(charged.size() == 8);
    for (std::size_t i = 0; i < charged.size(); ++i) {
        CHECK(charged[i]->integer("customer") == static_cast<std::int64_t>(i / 2 + 1));
        CHECK(charged[i]->integer("step") == static_cast<std::int64_t>(i % 2 + 1));
    }
    CHECK(run.metrics.value(Metric::double_charges) == 0);
    CHECK(run.metrics.value(Metric::items_not_done) == 0);
    const auto due = events_of(run.trace, trace_kind::job_due.name);
    REQUIRE(due.size() == 1);
    CHECK(due[0]->text("step_names") == "write the new index\ndelete the old segments");
}

TEST_CASE("a crash between two steps leaves the item half done when nobody takes its claim back") {
    // compactor-1 dies the moment its first write of tenant 2 lands; under claim-once the
    // row stays claimed, compactor-2 skips tenant 2, and its old segments are never deleted.
    const std::string crash =
        R"([{"crash": "compactor-1", "when": {"event": "provider.charged", "customer": 2, "step": 1}}])";
    const ScenarioOutcome outcome =
        run_scenario(parse_scenario(two_step_world(R"("fencing": "claim-once",)", crash), "t.json", metric_names()), 1);
    const auto& run = two_step_run(outcome);
    CHECK(run.metrics.value(Metric::items_not_done) == 1);
    CHECK(run.metrics.value(Metric::double_charges) == 0);
    bool told = false;
    for (const auto& flag : run.metrics.flagged)
        if (flag.metric == Metric::items_not_done)
            told = flag.explanation == "tenant 2 left half done for 2026-12-07 (never: delete the old segments)";
    CHECK(told);
}

TEST_CASE("a step done twice is a double of that step, and each step has its own idempotency key") {
    // compactor-1 is stopped between its two writes of tenant 2 past its lease: compactor-2
    // rewrites tenant 2 whole, then compactor-1 wakes and deletes the old segments again.
    const std::string stop = R"([{"pause": "compactor-1", "for": "40s", "kind": "sigstop",
                                 "when": {"event": "provider.charged", "customer": 2, "step": 1}}])";
    const ScenarioOutcome plain = run_scenario(parse_scenario(two_step_world("", stop), "t.json", metric_names()), 1);
    const auto& doubled = two_step_run(plain);
    CHECK(doubled.metrics.value(Metric::double_charges) >= 1);
    bool second_delete = false;
    for (const auto& flag : doubled.metrics.flagged)
        if (flag.metric == Metric::double_charges &&
            flag.explanation == "tenant 2: delete the old segments done a second time for 2026-12-07")
            second_delete = true;
    CHECK(second_delete);

    const ScenarioOutcome keyed =
        run_scenario(parse_scenario(two_step_world(R"("idempotency_key": "compact-{item}-{period}",)", stop), "t.json",
                                    metric_names()),
                     1);
    const auto& once = two_step_run(keyed);
    CHECK(once.metrics.value(Metric::double_charges) == 0);
    bool step_key = false;
    for (const auto* charge : events_of(once.trace, trace_kind::provider_charged.name))
        if (charge->integer("step") == 2 && charge->text("key") == "compact-1-2026-12-07#step-2") step_key = true;
    CHECK(step_key);
}

TEST_CASE("the loader takes effect_steps of 2 to 10 distinct names, for a job with items") {
    const std::string world = R"({"name": "n", "description": "d", "seed": 1, "servers": ["server-1"],
      "network": {"delay": "1ms"}, "lock": {"store": "redis", "key": "k", "ttl": "10s"}, "designs": {"d": {}},
      "job": )";
    const std::string job =
        R"({"name": "renewals", "at": "00:00", "customers": [1], "period": "2026-10", "work_per_customer": "1s", )";
    CHECK(says(error_of(world + job + R"("effect_steps": ["charge"]}})"),
               "/job/effect_steps: expected the effect's steps in order, 2 to 10 names"));
    CHECK(says(error_of(world + job + R"("effect_steps": ["charge", "charge"]}})"),
               "/job/effect_steps/1: step \"charge\" is listed twice"));
    CHECK(says(error_of(world + job + R"("effect_steps": ["charge", ""]}})"),
               "/job/effect_steps/1: expected a step's name"));
    CHECK(says(error_of(world + R"({"kind": "index-rebuild", "name": "r", "at": "00:00", "period": "p", "work": "1s",
                                    "effect_steps": ["a", "b"]}})"),
               "/job/effect_steps: unknown field"));
}
