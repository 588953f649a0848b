// models/world/fault_schedule.cpp and scenarios/schema/given_fault.cpp: runs drawn given that a
// rare fault generator strikes, and sweeps whose rates are weighed by the exact
// probability that it does. A conditioned sweep must agree with a plain one where both can
// measure, and must say what it leaves out.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "checks/metrics.hpp"
#include "checks/sweep_merge.hpp"
#include "models/world/fault_schedule.hpp"
#include "reports/sweep_text.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/shrink_runner.hpp"
#include "runners/sweep_runner.hpp"
#include "scenarios/schema/given_fault.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "scenarios/schema/shard_reader.hpp"
#include "tests/support.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

FaultGenerator rare_pauses(std::vector<std::string> targets, Duration mean_interval) {
    FaultGenerator generator;
    generator.shape = PauseFault{{}, {}, {}, "sigstop", std::nullopt};
    generator.targets = std::move(targets);
    generator.mean_interval = mean_interval;
    generator.amounts.set("for", DurationDistribution::uniform(10_s, 25_s));
    generator.from = midnight;
    generator.until = at(hours(1));
    return generator;
}

// Three exporters elect a leader with a Kubernetes Lease and send what arrives; freezes
// of 10 to 40 s strike each about once in `mean_interval`. Without a freeze nothing breaks.
std::string exporters_with_freezes(const std::string& mean_interval) {
    return R"({
  "name": "freezes", "description": "Freezes at random under a leader loop.", "seed": 1, "horizon": "20m",
  "servers": ["exporter-1", "exporter-2", "exporter-3"],
  "network": { "delay": "1ms" },
  "lock": { "store": "kubernetes-lease", "key": "export", "ttl": "15s", "renew_deadline": "10s", "retry_period": "2s" },
  "job": { "kind": "leader-loop", "name": "export", "at": "00:00", "every": "30s", "until": "10m",
           "queue": { "arrive": { "mean_interval": "10s" } }, "work_per_item": "5s" },
  "fault_generators": [ { "pause": "servers", "mean_interval": ")" +
           mean_interval + R"(", "for": { "uniform": ["10s", "40s"] }, "kind": "sigstop", "until": "10m" } ],
  "designs": { "plain": {}, "keyed": { "idempotency_key": "item-{customer}" } }
})";
}

void no_sweep_progress(std::uint64_t) {}

// `text` with its one `from` replaced by `to`.
std::string rewritten(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    REQUIRE(text.find(from, at + 1) == std::string::npos);
    return text.replace(at, from.size(), to);
}

// A conditioned sweep's probability and totals, which two files that mean the same must share.
struct Conditioned {
    double probability = 0;
    nlohmann::ordered_json designs;
};
Conditioned conditioned_sweep(const std::string& text, std::uint64_t seeds) {
    const Scenario scenario = parse_scenario(text, "freezes.json", metric_names());
    const SweepSummary summary =
        run_sweep(scenario, SeedBlock{1, seeds}, 2, no_sweep_progress, SweepSettings{std::nullopt, 50'000'000, 0});
    REQUIRE(summary.given.has_value());
    return Conditioned{summary.given->probability, sweep_json(summary)["designs"]};
}

// Shard i of n of a sweep, as `sweep --shard i/n` writes it.
std::string given_shard_text(const Scenario& scenario, SeedBlock seeds, std::uint32_t i, std::uint32_t n,
                             const SweepSettings& settings) {
    SweepSummary part = run_sweep(scenario, shard_block(seeds, i, n), 1, no_sweep_progress, settings, true);
    part.seeds = seeds;
    part.shard = i;
    part.shards = n;
    part.provenance = SweepProvenance{std::string(64, 'a'), "0.1.0", "abc", sweep_command_line(part, i)};
    return sweep_json(part).dump();
}

}  // namespace

TEST_CASE("a given generator draws at least one fault in every run, and the others draw as before") {
    FaultGenerator given = rare_pauses({"server-1", "server-2", "server-3"}, hours(24 * 30));
    given.given = true;
    FaultGenerator common = rare_pauses({"server-1"}, 5_min);
    std::get<PauseFault>(common.shape).cause = "gc";  // to tell the two generators' faults apart
    const auto caused_by = [](const std::vector<Fault>& faults, const std::string& cause) {
        std::vector<std::int64_t> times;
        for (const auto& fault : faults)
            if (std::get<PauseFault>(fault).cause == cause) times.push_back(time_of(fault).ns);
        return times;
    };
    int runs_with_two = 0;
    for (std::uint64_t seed = 1; seed <= 500; ++seed) {
        const auto faults = draw_fault_schedule({given, common}, seed);
        FaultGenerator not_given = given;
        not_given.given = false;
        for (const auto& fault : faults) {
            REQUIRE(time_of(fault) >= midnight);
            REQUIRE(time_of(fault) < at(hours(1)));
        }
        const auto from_given = caused_by(faults, "sigstop");
        REQUIRE_FALSE(from_given.empty());
        if (from_given.size() >= 2) ++runs_with_two;
        // The common generator's draws are as they are without a given one beside it.
        REQUIRE(caused_by(faults, "gc") == caused_by(draw_fault_schedule({not_given, common}, seed), "gc"));
    }
    // After the first, a month's mean interval rarely brings a second within the hour:
    // 3 h of exposure in 720 h, about 0.4 % of runs.
    CHECK(runs_with_two < 10);
}

TEST_CASE("a given generator's first fault falls by the exponential law cut at the window, on any target") {
    // Three targets at a mean of 3 h each: the first of all at a mean of 1 h, cut at 1 h.
    // Its mean given it falls within the hour: m - T e^(-T/m) / (1 - e^(-T/m)) = 0.418 h.
    FaultGenerator given = rare_pauses({"server-1", "server-2", "server-3"}, hours(3));
    given.given = true;
    constexpr int seeds = 4000;
    double sum_hours = 0;
    int on_target[3] = {0, 0, 0};
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        const auto faults = draw_fault_schedule({given}, seed);
        REQUIRE_FALSE(faults.empty());
        const auto& first = std::get<PauseFault>(faults.front());
        sum_hours += static_cast<double>(first.at.ns) / static_cast<double>(hours(1).ns);
        ++on_target[first.node.back() - '1'];
    }
    const double expected = 1.0 - std::exp(-1.0) / (1.0 - std::exp(-1.0));
    // The law's standard deviation is about 0.28 h: over 4000 seeds the mean's is 0.0045 h.
    CHECK(sum_hours / seeds == Approx(expected).margin(0.02));
    for (int count : on_target) CHECK(count == Approx(seeds / 3.0).margin(150));
}

TEST_CASE("the probability a generator strikes is 1 - e^(-nT/m), and a plain draw strikes that often") {
    const FaultGenerator apart = rare_pauses({"server-1", "server-2"}, hours(4));
    CHECK(strike_probability(apart) == Approx(1 - std::exp(-2.0 / 4.0)));
    FaultGenerator at_once = apart;
    at_once.at_once = true;
    CHECK(strike_probability(at_once) == Approx(1 - std::exp(-1.0 / 4.0)));
    FaultGenerator monthly = rare_pauses({"server-1", "server-2", "server-3"}, hours(24 * 30));
    CHECK(strike_probability(monthly) == Approx(1 - std::exp(-3.0 / 720.0)).epsilon(1e-12));
    int struck = 0;
    constexpr int seeds = 4000;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) struck += draw_fault_schedule({apart}, seed).empty() ? 0 : 1;
    // p = 0.393; its standard error over 4000 seeds is 0.0077.
    CHECK(static_cast<double>(struck) / seeds == Approx(strike_probability(apart)).margin(0.03));
}

TEST_CASE("a conditioned sweep and a plain sweep agree within their intervals on a fault common enough for both") {
    // 84 min per exporter over a 10 min window: a plain run meets a freeze with p = 0.30.
    const Scenario scenario = parse_scenario(exporters_with_freezes("84m"), "freezes.json", metric_names());
    // The premise: without the freezes nothing breaks, so every incident of a plain sweep is
    // one of a run in which a freeze struck, which is what the conditioned one measures.
    Scenario without = scenario;
    for (auto& design : without.designs) design.world.fault_generators.clear();
    CHECK(run_sweep(without, SeedBlock{1, 300}, 2, no_sweep_progress).designs.front().runs_with_violation == 0);

    const SweepSummary plain = run_sweep(scenario, SeedBlock{1, 2000}, 2, no_sweep_progress, SweepSettings{"plain"});
    const SweepSummary given =
        run_sweep(scenario, SeedBlock{1, 1000}, 2, no_sweep_progress, SweepSettings{"plain", 50'000'000, 0});
    REQUIRE(given.given.has_value());
    const double p = given.given->probability;
    CHECK(p == Approx(1 - std::exp(-3.0 * 10 / 84)));
    const DesignTally& a = plain.designs.front();
    const DesignTally& b = given.designs.front();
    REQUIRE(a.runs_with_violation > 50);
    REQUIRE(b.runs_with_violation > 50);
    const auto plain_ci = wilson_interval(a.runs_with_violation, a.runs);
    const auto given_ci = wilson_interval(b.runs_with_violation, b.runs);
    const double plain_rate = static_cast<double>(a.runs_with_violation) / static_cast<double>(a.runs);
    const double weighed = p * static_cast<double>(b.runs_with_violation) / static_cast<double>(b.runs);
    // Their 95 % intervals overlap, and their difference is within 1.96 standard errors of
    // a difference of two independent estimates (here 1.6).
    CHECK(plain_ci.low <= p * given_ci.high);
    CHECK(p * given_ci.low <= plain_ci.high);
    const double plain_se = std::sqrt(plain_rate * (1 - plain_rate) / static_cast<double>(a.runs));
    const double given_rate = weighed / p;
    const double given_se = p * std::sqrt(given_rate * (1 - given_rate) / static_cast<double>(b.runs));
    CHECK(std::abs(plain_rate - weighed) < 1.96 * std::sqrt(plain_se * plain_se + given_se * given_se));
    // Half the seeds, and a narrower interval: every conditioned run counts.
    CHECK(p * (given_ci.high - given_ci.low) < plain_ci.high - plain_ci.low);
}

TEST_CASE("a conditioned sweep says it was conditioned, weighs its rates a day, and replays with --given-fault") {
    const Scenario scenario = parse_scenario(exporters_with_freezes("30d"), "freezes.json", metric_names());
    const SweepSummary summary =
        run_sweep(scenario, SeedBlock{1, 200}, 2, no_sweep_progress, SweepSettings{std::nullopt, 50'000'000, 0});
    REQUIRE(summary.given.has_value());
    const std::string text = render_sweep_text(summary, "locksim", false, 24);
    CHECK_THAT(text, Catch::Contains("Given fault_generators/0 (3 targets, one fault every 720h on each, from 0.000s "
                                     "until 600.000s): every run drew at least one of its faults; a plain run does "
                                     "with probability 0.069%."));
    CHECK_THAT(text, Catch::Contains("violation rate given it (95% CI)"));
    CHECK_THAT(text, Catch::Contains("At 24 runs a day, incidents in runs where it strikes:"));
    CHECK_THAT(text,
               Catch::Contains("Only runs in which fault_generators/0 strikes were drawn: incidents in the others "
                               "(99.93% of runs) are not in these rates."));
    const DesignTally& plain = summary.designs.front();
    REQUIRE_FALSE(plain.failing_seeds.empty());
    CHECK_THAT(text, Catch::Contains(fmt::format("locksim run freezes.json --seed {} --design plain --given-fault 0",
                                                 plain.failing_seeds.front())));
    // The JSON has the probability, and each design's rate weighed by it.
    const auto json = sweep_json(summary);
    CHECK(json["given_fault"]["generator"] == 0);
    CHECK(json["given_fault"]["probability"].get<double>() == Approx(1 - std::exp(-3.0 * 10 / (30 * 24 * 60))));
    CHECK(json["designs"][0]["rate_with_given_fault"].get<double>() ==
          Approx(summary.given->probability * json["designs"][0]["violation_rate"].get<double>()));
}

TEST_CASE("conditioned shards merge into the conditioned whole, and never with plain shards") {
    const Scenario scenario = parse_scenario(exporters_with_freezes("30d"), "freezes.json", metric_names());
    const SweepSettings settings{std::nullopt, 50'000'000, 0};
    const SeedBlock seeds{1, 60};
    ShardFiles files;
    for (std::uint32_t i = 1; i <= 3; ++i)
        add_shard_file(files, fmt::format("shard-{}.json", i), given_shard_text(scenario, seeds, i, 3, settings));
    const SweepSummary merged = merge_shards(files, MergeMode::whole);
    const SweepSummary whole = run_sweep(scenario, seeds, 2, no_sweep_progress, settings);
    CHECK(sweep_json(merged)["designs"] == sweep_json(whole)["designs"]);
    CHECK(sweep_json(merged)["given_fault"] == sweep_json(whole)["given_fault"]);
    CHECK_THAT(merged.provenance.command, Catch::Contains("--given-fault 0"));

    ShardFiles mixed;
    add_shard_file(mixed, "a.json", given_shard_text(scenario, seeds, 1, 2, settings));
    add_shard_file(mixed, "b.json", given_shard_text(scenario, seeds, 2, 2, {}));
    CHECK_THROWS_WITH(merge_shards(mixed, MergeMode::whole), Catch::Contains("given_fault is none (plain runs)"));
}

TEST_CASE("a given fault names a generator every design has, at one probability") {
    Scenario scenario = parse_scenario(exporters_with_freezes("30d"), "freezes.json", metric_names());
    CHECK_THROWS_WITH(give_fault(scenario, 1, std::nullopt),
                      "--given-fault 1: design \"plain\" has 1 fault generator (fault_generators/0 to /0); name one "
                      "of them by its index");
    Scenario without = scenario;
    for (auto& design : without.designs) design.world.fault_generators.clear();
    CHECK_THROWS_WITH(give_fault(without, 0, std::nullopt),
                      "--given-fault 0: design \"plain\" has no fault generators; a given fault conditions a sweep "
                      "on one of the file's fault_generators");
    Scenario differing = scenario;
    differing.designs[1].world.fault_generators[0].mean_interval = hours(24 * 60);
    CHECK_THROWS_WITH(give_fault(differing, 0, std::nullopt),
                      Catch::Contains("designs \"plain\" and \"keyed\" strike with it at different odds"));
    // One design alone is weighed by its own.
    CHECK(give_fault(differing, 0, std::string("keyed")).probability ==
          Approx(1 - std::exp(-3.0 * 10 / (60 * 24 * 60))));
}

TEST_CASE("a window written past the horizon is the window cut at the horizon, in its draws and its weight") {
    // The freezes' window to the horizon (20m), and written on to 3h: no fault after 20m can
    // strike, so both are the same generator.
    const std::string to_horizon =
        rewritten(exporters_with_freezes("30d"), R"("sigstop", "until": "10m")", R"("sigstop", "until": "20m")");
    const std::string past_it =
        rewritten(exporters_with_freezes("30d"), R"("sigstop", "until": "10m")", R"("sigstop", "until": "3h")");
    const Conditioned cut = conditioned_sweep(to_horizon, 200);
    const Conditioned written = conditioned_sweep(past_it, 200);
    CHECK(cut.probability == Approx(1 - std::exp(-3.0 * 20 / (30 * 24 * 60))));
    CHECK(written.probability == cut.probability);
    CHECK(written.designs == cut.designs);
    // A window that opens after the horizon is empty, and refused where it opens.
    CHECK_THROWS_WITH(
        parse_scenario(rewritten(past_it, R"("sigstop", "until": "3h")", R"("sigstop", "from": "1h", "until": "3h")"),
                       "freezes.json", metric_names()),
        Catch::Contains("/fault_generators/0/from: the window from 3600.000s to 1200.000s is empty"));
}

TEST_CASE("a target named twice is one target, in its draws and its weight") {
    const std::string once = exporters_with_freezes("30d");
    const std::string twice = rewritten(once, R"("pause": "servers")",
                                        R"("pause": ["servers", "exporter-1", {"role": "holder"}, "exporter-1"])");
    const std::string with_holder =
        rewritten(once, R"("pause": "servers")", R"("pause": ["servers", {"role": "holder"}])");
    const Conditioned one = conditioned_sweep(with_holder, 200);
    const Conditioned two = conditioned_sweep(twice, 200);
    // Three exporters and the holder: four targets, however often each is named.
    CHECK(one.probability == Approx(1 - std::exp(-4.0 * 10 / (30 * 24 * 60))));
    CHECK(two.probability == one.probability);
    CHECK(two.designs == one.designs);
}

TEST_CASE("shrink --given-fault shrinks a failing seed of a conditioned sweep, which the plain draw does not fail") {
    const std::string text = exporters_with_freezes("30d");
    const Scenario scenario = parse_scenario(text, "freezes.json", metric_names());
    const SweepSummary summary =
        run_sweep(scenario, SeedBlock{1, 200}, 2, no_sweep_progress, SweepSettings{std::nullopt, 50'000'000, 0});
    const DesignTally& plain = summary.designs.front();
    REQUIRE_FALSE(plain.failing_seeds.empty());
    const std::uint64_t seed = plain.failing_seeds.front();
    // Drawn plainly, the monthly freeze does not strike in that seed's run: nothing to shrink.
    CHECK_THROWS_WITH(shrink(ShrinkRequest{"freezes.json", text, "plain", seed}),
                      Catch::Contains("shows no violation, so there is nothing to shrink"));
    // Drawn given it, the run fails, and shrinks to a file that replays the failure.
    const ShrinkResult result = shrink(ShrinkRequest{"freezes.json", text, "plain", seed, std::nullopt, 0});
    REQUIRE_FALSE(result.steps.empty());
    CHECK_THAT(result.steps.front(), Catch::EndsWith(fmt::format("for seed {} given fault_generators/0", seed)));
    CHECK_FALSE(result.minimal.contains("fault_generators"));
    const Scenario minimal = parse_scenario(result.minimal.dump(), "minimal.json", metric_names());
    const ScenarioOutcome replayed = run_scenario(minimal, minimal.seed);
    CHECK(replayed.designs.front().metrics.value(result.violation) >= 1);
    // A generator the design does not have is refused in one line.
    CHECK_THROWS_WITH(shrink(ShrinkRequest{"freezes.json", text, "plain", seed, std::nullopt, 3}),
                      Catch::StartsWith("--given-fault 3: design \"plain\" has 1 fault generator"));
}
