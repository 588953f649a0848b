// checks/checkers.hpp: checking a run's events as they are recorded, without keeping the
// trace, finds exactly what checking the kept trace afterwards finds.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "tests/scenario_support.hpp"

using namespace locksim;

namespace {

void require_same(const RunMetrics& live, const RunMetrics& replayed) {
    for (const auto& metric : metric_names()) {
        INFO(metric);
        CHECK(live.value(metric) == replayed.value(metric));
    }
    CHECK(live.overlap_time == replayed.overlap_time);
    CHECK(live.first_violation == replayed.first_violation);
    REQUIRE(live.flagged.size() == replayed.flagged.size());
    for (std::size_t i = 0; i < live.flagged.size(); ++i) {
        CHECK(live.flagged[i].sequence == replayed.flagged[i].sequence);
        CHECK(live.flagged[i].violation() == replayed.flagged[i].violation());
        CHECK(live.flagged[i].explanation == replayed.flagged[i].explanation);
        CHECK(live.flagged[i].metric == replayed.flagged[i].metric);
    }
    REQUIRE(live.pending.size() == replayed.pending.size());
    for (std::size_t i = 0; i < live.pending.size(); ++i) {
        CHECK(live.pending[i].server == replayed.pending[i].server);
        CHECK(live.pending[i].since == replayed.pending[i].since);
        CHECK(live.pending[i].customer == replayed.pending[i].customer);
        CHECK(live.pending[i].frozen_since == replayed.pending[i].frozen_since);
    }
    REQUIRE(live.double_charged.size() == replayed.double_charged.size());
    for (std::size_t i = 0; i < live.double_charged.size(); ++i) {
        CHECK(live.double_charged[i].customer == replayed.double_charged[i].customer);
        CHECK(live.double_charged[i].charges == replayed.double_charged[i].charges);
    }
}

}  // namespace

TEST_CASE("every shipped design, checked as recorded without a kept trace, shows what its kept trace shows") {
    const auto files = testing::shipped_scenario_files();
    REQUIRE(files.size() >= 16);
    std::size_t violating_runs = 0;
    for (const auto& file : files) {
        const auto scenario = load_scenario_file(testing::scenario_path(file), metric_names());
        for (const auto& design : scenario.designs) {
            for (std::uint64_t seed : {scenario.seed, scenario.seed + 1}) {
                INFO(scenario.name << " " << design.name << " seed " << seed);
                const CheckedRun kept = run_and_check(design.world, seed, RunOptions{.trace_messages = false});
                const CheckedRun unkept =
                    run_and_check(design.world, seed, RunOptions{.trace_messages = false, .keep_trace = false});
                CHECK(unkept.trace.events().empty());
                CHECK(unkept.trace.recorded() == kept.trace.events().size());
                CHECK(unkept.summary.events_handled == kept.summary.events_handled);
                require_same(unkept.metrics, kept.metrics);
                require_same(unkept.metrics, check_trace(kept.trace, kept.summary.ended_at));
                if (unkept.metrics.first_violation) ++violating_runs;
            }
        }
    }
    CHECK(violating_runs > 10);  // the comparison covers runs that flag violations, not only clean ones
}

TEST_CASE("a run that keeps no trace still numbers its events, so flags point where a kept trace would") {
    const auto scenario =
        load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json", metric_names());
    const auto& unfenced = scenario.designs.front();
    REQUIRE(unfenced.name == "unfenced");
    const CheckedRun kept = run_and_check(unfenced.world, scenario.seed);
    const CheckedRun unkept = run_and_check(unfenced.world, scenario.seed, RunOptions{.keep_trace = false});
    REQUIRE(kept.metrics.value(Metric::double_charges) == 1);
    REQUIRE_FALSE(unkept.metrics.flagged.empty());
    for (const auto& flag : unkept.metrics.flagged) {
        REQUIRE(flag.sequence < kept.trace.events().size());
        CHECK(kept.metrics.flag_for(flag.sequence) != nullptr);
    }
    CHECK(unkept.metrics.first_violation == kept.trace.events()[kept.metrics.flagged.front().sequence].at);
}

TEST_CASE("all checkers together find what each checker finds on its own over the whole trace, messages included") {
    std::size_t flagged = 0;
    for (const auto& file : testing::shipped_scenario_files()) {
        const auto scenario = load_scenario_file(testing::scenario_path(file), metric_names());
        for (const auto& design : scenario.designs) {
            INFO(scenario.name << " " << design.name);
            const CheckedRun run = run_and_check(design.world, scenario.seed);  // messages traced
            const Instant end = run.summary.ended_at;
            RunMetrics alone;
            count_charges(run.trace, alone);
            find_suppressed_effects(run.trace, alone);
            find_holder_overlaps(run.trace, end, alone);
            check_fencing(run.trace, alone);
            count_foreign_releases(run.trace, alone);
            count_wakeups(run.trace, alone);
            find_finish(run.trace, alone);
            find_retry_storms(run.trace, alone);
            count_double_applies(run.trace, alone);
            measure_duplicate_work(run.trace, alone);
            measure_waits(run.trace, end, alone);
            find_pending_work(run.trace, alone);
            find_items_not_done(run.trace, end, alone);
            find_leaked_locks(run.trace, end, alone);
            std::sort(alone.flagged.begin(), alone.flagged.end(),
                      [](const FlaggedEvent& a, const FlaggedEvent& b) { return a.sequence < b.sequence; });
            // A loss of work is known only at the run's end, whichever event its flag points at.
            for (const FlaggedEvent& flag : alone.flagged) {
                if (!flag.violation()) continue;
                const bool at_end = flag.metric == Metric::items_not_done || flag.metric == Metric::unfinished_work ||
                                    flag.metric == Metric::locks_leaked;
                const Instant at = at_end ? end : run.trace.events()[flag.sequence].at;
                if (!alone.first_violation || at < *alone.first_violation) alone.first_violation = at;
            }
            require_same(run.metrics, alone);
            flagged += alone.flagged.size();
        }
    }
    CHECK(flagged > 20);
}
