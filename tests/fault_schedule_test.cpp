// models/world/fault_schedule.hpp: the faults a scenario's generators draw for a seed.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "checks/metrics.hpp"
#include "models/world/fault_schedule.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/duration_text.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// One line per fault, so two schedules compare (and print) as lists of text.
std::string fault_line(const Fault& fault) {
    struct Describe {
        std::string operator()(const PauseFault& f) const {
            return fmt::format("{} pause {} for {} ({})", f.at.ns, f.node, f.length.ns, f.cause);
        }
        std::string operator()(const ClockStepFault& f) const {
            return fmt::format("{} clock_step {} by {}", f.at.ns, f.node, f.delta.ns);
        }
        std::string operator()(const CrashFault& f) const {
            return fmt::format("{} crash {} restart_after {}", f.at.ns, f.node,
                               f.restart_after ? std::to_string(f.restart_after->ns) : "never");
        }
        std::string operator()(const PartitionFault&) const { return "partition"; }
        std::string operator()(const DelaySpikeFault&) const { return "delay_spike"; }
        std::string operator()(const LossBurstFault&) const { return "loss_burst"; }
        std::string operator()(const MessageHoldFault&) const { return "hold_message"; }
    };
    return std::visit(Describe{}, fault);
}

std::vector<std::string> fault_lines(const std::vector<Fault>& faults) {
    std::vector<std::string> lines;
    for (const auto& fault : faults) lines.push_back(fault_line(fault));
    return lines;
}

std::vector<std::int64_t> fault_times(const std::vector<Fault>& faults) {
    std::vector<std::int64_t> times;
    for (const auto& fault : faults) times.push_back(time_of(fault).ns);
    return times;
}

std::string node_of(const Fault& fault) {
    if (const auto* pause = std::get_if<PauseFault>(&fault)) return pause->node;
    if (const auto* step = std::get_if<ClockStepFault>(&fault)) return step->node;
    if (const auto* crash = std::get_if<CrashFault>(&fault)) return crash->node;
    return "";
}

FaultGenerator pauses(std::vector<std::string> targets, Duration mean_interval, DurationDistribution length,
                      Instant from = midnight, Instant until = at(10_min)) {
    FaultGenerator generator;
    generator.shape = PauseFault{{}, {}, {}, "gc", std::nullopt};
    generator.targets = std::move(targets);
    generator.mean_interval = mean_interval;
    // The same distribution for whichever member the shape draws, so a test may swap the
    // shape for another family's.
    for (std::string_view field : {"for", "by", "restart_after", "heal_after"}) generator.amounts.set(field, length);
    generator.from = from;
    generator.until = until;
    return generator;
}

std::vector<Fault> faults_on(const std::vector<Fault>& faults, const std::string& node) {
    std::vector<Fault> found;
    for (const auto& fault : faults)
        if (node_of(fault) == node) found.push_back(fault);
    return found;
}

}  // namespace

TEST_CASE("the same seed draws the same schedule, and another seed another") {
    const std::vector<FaultGenerator> generators{
        pauses({"server-1", "server-2"}, 30_s, DurationDistribution::pareto(500_ms, 1.0, 2_min)),
        pauses({"redis"}, 1_min, DurationDistribution::uniform(1_s, 5_s))};
    const auto first = fault_lines(draw_fault_schedule(generators, 1));
    REQUIRE(first.size() > 10);
    CHECK(fault_lines(draw_fault_schedule(generators, 1)) == first);
    CHECK(fault_lines(draw_fault_schedule(generators, 2)) != first);
}

TEST_CASE("every drawn fault falls inside its generator's window, from included, until not") {
    const std::vector<FaultGenerator> generators{
        pauses({"server-1", "server-2"}, 1_s, DurationDistribution::fixed(100_ms), at(10_s), at(70_s)),
        pauses({"server-3"}, 2_s, DurationDistribution::fixed(100_ms), at(1_min), at(2_min))};
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const auto faults = draw_fault_schedule(generators, seed);
        REQUIRE_FALSE(faults.empty());
        for (const auto& fault : faults) {
            const bool third = node_of(fault) == "server-3";
            REQUIRE(time_of(fault) >= (third ? at(1_min) : at(10_s)));
            REQUIRE(time_of(fault) < (third ? at(2_min) : at(70_s)));
        }
    }
}

TEST_CASE("a schedule lists its faults in time order across generators and targets") {
    const std::vector<FaultGenerator> generators{
        pauses({"server-1", "server-2", "server-3"}, 10_s, DurationDistribution::fixed(1_s)),
        pauses({"server-1"}, 20_s, DurationDistribution::fixed(2_s))};
    const auto faults = draw_fault_schedule(generators, 7);
    REQUIRE(faults.size() > 50);
    CHECK(std::is_sorted(faults.begin(), faults.end(),
                         [](const Fault& a, const Fault& b) { return time_of(a) < time_of(b); }));
    // Both generators are in it, interleaved rather than one after the other.
    CHECK(std::any_of(faults.begin(), faults.begin() + static_cast<std::ptrdiff_t>(faults.size() / 2),
                      [](const Fault& f) { return std::get<PauseFault>(f).length == 2_s; }));
}

TEST_CASE("adding a target leaves every other target's faults as they were") {
    const auto length = DurationDistribution::uniform(100_ms, 3_s);
    const auto alone = draw_fault_schedule({pauses({"server-2"}, 20_s, length)}, 3);
    const auto with_others = draw_fault_schedule({pauses({"server-1", "server-2", "server-3"}, 20_s, length)}, 3);
    REQUIRE_FALSE(alone.empty());
    CHECK(fault_lines(faults_on(with_others, "server-2")) == fault_lines(alone));
    CHECK_FALSE(faults_on(with_others, "server-1").empty());
}

TEST_CASE("the mean number of faults over many seeds is the window over the mean interval") {
    // 60s at one every 6s: 10 expected per run. Over 2000 seeds the standard error of
    // the mean count is sqrt(10/2000) = 0.07; allow 0.3.
    const std::vector<FaultGenerator> generators{
        pauses({"server-1"}, 6_s, DurationDistribution::fixed(1_s), at(1_min), at(2_min))};
    constexpr int seeds = 2000;
    std::size_t total = 0;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) total += draw_fault_schedule(generators, seed).size();
    CHECK(static_cast<double>(total) / seeds == Approx(10.0).margin(0.3));
}

TEST_CASE("each target's times and amounts come from its own stream, time then amount") {
    // The stream is named after the generator's position and the node; the first gap is
    // drawn from `from`, then each fault draws its amount and the gap to the next.
    const auto length = DurationDistribution::uniform(1_s, 5_s);
    const auto faults = draw_fault_schedule({pauses({"server-1"}, 30_s, DurationDistribution::fixed(1_s)),
                                             pauses({"server-2"}, 30_s, length, at(1_min), at(10_min))},
                                            11);
    const auto drawn = faults_on(faults, "server-2");
    REQUIRE(drawn.size() > 3);
    RandomStream replay(11, "faults/1/server-2");
    Instant expected_at = at(1_min) + replay.exponential(30_s);
    for (const auto& fault : drawn) {
        const auto& pause = std::get<PauseFault>(fault);
        REQUIRE(pause.at == expected_at);
        REQUIRE(pause.length == length.draw(replay));
        REQUIRE(pause.cause == "gc");
        expected_at += replay.exponential(30_s);
    }
    CHECK(expected_at >= at(10_min));  // the next draw fell past the window
}

TEST_CASE("pause, clock-step and crash generators make faults of their kind with amounts from the distribution") {
    SECTION("pauses last a drawn length and carry the generator's cause") {
        FaultGenerator generator = pauses({"server-1"}, 10_s, DurationDistribution::uniform(1_s, 2_s));
        std::get<PauseFault>(generator.shape).cause = "swap";
        const auto faults = draw_fault_schedule({generator}, 5);
        REQUIRE(faults.size() > 20);
        for (const auto& fault : faults) {
            const auto* pause = std::get_if<PauseFault>(&fault);
            REQUIRE(pause != nullptr);
            REQUIRE(pause->node == "server-1");
            REQUIRE(pause->length >= 1_s);
            REQUIRE(pause->length <= 2_s);
            REQUIRE(pause->cause == "swap");
            REQUIRE_FALSE(pause->when.has_value());
        }
    }
    SECTION("clock steps go both ways when their range spans zero") {
        FaultGenerator generator = pauses({"server-1"}, 10_s, DurationDistribution::uniform(-5_s, 5_s));
        generator.shape = ClockStepFault{};
        const auto faults = draw_fault_schedule({generator}, 5);
        REQUIRE(faults.size() > 20);
        bool back = false;
        bool forward = false;
        for (const auto& fault : faults) {
            const auto* step = std::get_if<ClockStepFault>(&fault);
            REQUIRE(step != nullptr);
            REQUIRE(step->delta >= -5_s);
            REQUIRE(step->delta <= 5_s);
            back = back || step->delta < Duration{};
            forward = forward || step->delta > Duration{};
        }
        CHECK(back);
        CHECK(forward);
    }
    SECTION("crashes restart after a drawn time, or never when the generator says so") {
        FaultGenerator generator = pauses({"redis"}, 10_s, DurationDistribution::fixed(30_s));
        generator.shape = CrashFault{{}, {}, Duration{}, std::nullopt};
        const auto restarting = draw_fault_schedule({generator}, 5);
        REQUIRE(restarting.size() > 20);
        for (const auto& fault : restarting) {
            const auto* crash = std::get_if<CrashFault>(&fault);
            REQUIRE(crash != nullptr);
            REQUIRE(crash->restart_after == std::optional<Duration>(30_s));
        }
        generator.shape = CrashFault{};
        const auto staying_down = draw_fault_schedule({generator}, 5);
        REQUIRE(staying_down.size() == restarting.size());
        for (const auto& fault : staying_down) REQUIRE_FALSE(std::get<CrashFault>(fault).restart_after.has_value());
    }
}

TEST_CASE("generators of faults between nodes draw one stream: partitions, delay spikes and loss bursts") {
    SECTION("a partition heals after a drawn time, between the sides the generator names") {
        FaultGenerator generator = pauses({}, 20_s, DurationDistribution::uniform(1_s, 9_s));
        generator.shape = PartitionFault{{"server-1"}, {"lock-store"}, {}, std::nullopt, true, std::nullopt};
        const auto faults = draw_fault_schedule({generator}, 7);
        REQUIRE(faults.size() > 10);
        for (const auto& fault : faults) {
            const auto& partition = std::get<PartitionFault>(fault);
            REQUIRE(partition.side_a == std::vector<std::string>{"server-1"});
            REQUIRE(partition.one_way);
            REQUIRE(partition.heal_after.has_value());
            REQUIRE(*partition.heal_after >= 1_s);
            REQUIRE(*partition.heal_after <= 9_s);
        }
    }
    SECTION("a delay spike draws its length, then its extra") {
        FaultGenerator generator = pauses({}, 20_s, DurationDistribution::fixed(3_s));
        generator.shape = DelaySpikeFault{"server-1", "payment-provider", {}, {}, {}, false, std::nullopt};
        generator.amounts.set("extra", DurationDistribution::uniform(1_s, 2_s));
        const auto faults = draw_fault_schedule({generator}, 7);
        REQUIRE(faults.size() > 10);
        bool extras_vary = false;
        for (const auto& fault : faults) {
            const auto& spike = std::get<DelaySpikeFault>(fault);
            REQUIRE(spike.length == 3_s);
            REQUIRE(spike.extra >= 1_s);
            REQUIRE(spike.extra <= 2_s);
            extras_vary = extras_vary || spike.extra != std::get<DelaySpikeFault>(faults[0]).extra;
        }
        CHECK(extras_vary);
    }
    SECTION("a loss burst keeps its odds and draws its length") {
        FaultGenerator generator = pauses({}, 20_s, DurationDistribution::uniform(1_s, 2_s));
        generator.shape = LossBurstFault{"server-1", "lock-store", {}, {}, Odds{1, 3}, true, std::nullopt};
        const auto faults = draw_fault_schedule({generator}, 7);
        REQUIRE(faults.size() > 10);
        for (const auto& fault : faults) {
            const auto& burst = std::get<LossBurstFault>(fault);
            REQUIRE(burst.loss.numerator == 1);
            REQUIRE(burst.loss.denominator == 3);
            REQUIRE(burst.length >= 1_s);
            REQUIRE(burst.length <= 2_s);
        }
    }
    SECTION("the same seed draws the same schedule; another seed another") {
        FaultGenerator generator = pauses({}, 20_s, DurationDistribution::uniform(1_s, 9_s));
        generator.shape = PartitionFault{{"server-1"}, {"lock-store"}, {}, std::nullopt, false, std::nullopt};
        const auto once = draw_fault_schedule({generator}, 7);
        CHECK(fault_times(once) == fault_times(draw_fault_schedule({generator}, 7)));
        CHECK(fault_times(once) != fault_times(draw_fault_schedule({generator}, 8)));
    }
}

TEST_CASE("a generator at once strikes every target in each draw, at one instant with the same amounts") {
    const auto length = DurationDistribution::uniform(1_s, 9_s);
    SECTION("pauses: one stream for all targets, each draw three faults alike but for the node") {
        FaultGenerator generator = pauses({"server-1", "server-2", "server-3"}, 20_s, length);
        generator.at_once = true;
        const auto faults = draw_fault_schedule({generator}, 5);
        REQUIRE(faults.size() >= 9);
        REQUIRE(faults.size() % 3 == 0);
        RandomStream replay(5, "faults/0/at_once");
        Instant expected_at = midnight + replay.exponential(20_s);
        for (std::size_t draw = 0; draw < faults.size(); draw += 3) {
            const Duration expected_length = length.draw(replay);
            for (std::size_t i = 0; i < 3; ++i) {
                const auto& pause = std::get<PauseFault>(faults[draw + i]);
                REQUIRE(pause.at == expected_at);
                REQUIRE(pause.length == expected_length);
                REQUIRE(pause.node == fmt::format("server-{}", i + 1));
            }
            expected_at += replay.exponential(20_s);
        }
        CHECK(expected_at >= at(10_min));
    }
    SECTION("apart, the same targets draw at different instants") {
        const auto faults = draw_fault_schedule({pauses({"server-1", "server-2", "server-3"}, 20_s, length)}, 5);
        const auto first = fault_times(faults_on(faults, "server-1"));
        const auto second = fault_times(faults_on(faults, "server-2"));
        REQUIRE_FALSE(first.empty());
        CHECK(first != second);
    }
    SECTION("delay spikes on several links: each link struck in each draw with the same window and extra") {
        FaultGenerator generator = pauses({}, 20_s, length);
        generator.shape = DelaySpikeFault{{}, {}, {}, {}, {}, false, std::nullopt};
        generator.amounts.set("extra", DurationDistribution::uniform(1_s, 5_s));
        generator.links = {{"server-1", "lock-store"}, {"server-2", "lock-store"}, {"server-3", "lock-store"}};
        generator.at_once = true;
        const auto faults = draw_fault_schedule({generator}, 5);
        REQUIRE(faults.size() >= 9);
        REQUIRE(faults.size() % 3 == 0);
        for (std::size_t draw = 0; draw < faults.size(); draw += 3) {
            const auto& first = std::get<DelaySpikeFault>(faults[draw]);
            for (std::size_t i = 0; i < 3; ++i) {
                const auto& spike = std::get<DelaySpikeFault>(faults[draw + i]);
                REQUIRE(spike.from == fmt::format("server-{}", i + 1));
                REQUIRE(spike.to == "lock-store");
                REQUIRE(spike.at == first.at);
                REQUIRE(spike.length == first.length);
                REQUIRE(spike.extra == first.extra);
            }
        }
    }
}

TEST_CASE("a link generator with several links draws each link from its own stream") {
    FaultGenerator generator = pauses({}, 20_s, DurationDistribution::uniform(1_s, 9_s));
    generator.shape = DelaySpikeFault{{}, {}, {}, {}, {}, false, std::nullopt};
    generator.amounts.set("extra", DurationDistribution::fixed(1_s));
    const auto on = [](const std::vector<Fault>& faults, const std::string& from) {
        std::vector<std::int64_t> times;
        for (const auto& fault : faults)
            if (std::get<DelaySpikeFault>(fault).from == from) times.push_back(time_of(fault).ns);
        return times;
    };
    SECTION("one link keeps the stream a single-link generator always had") {
        generator.links = {{"server-1", "lock-store"}};
        FaultGenerator shape_only = generator;
        shape_only.links.clear();
        std::get<DelaySpikeFault>(shape_only.shape).from = "server-1";
        std::get<DelaySpikeFault>(shape_only.shape).to = "lock-store";
        const auto faults = draw_fault_schedule({generator}, 9);
        REQUIRE_FALSE(faults.empty());
        CHECK(on(faults, "server-1") == fault_times(draw_fault_schedule({shape_only}, 9)));
        RandomStream replay(9, "faults/0/network");
        CHECK(time_of(faults.front()) == midnight + replay.exponential(20_s));
    }
    SECTION("several links: a stream named by each link's ends, the same whichever links are beside it") {
        generator.links = {{"server-1", "lock-store"}, {"server-2", "lock-store"}};
        const auto both = draw_fault_schedule({generator}, 9);
        generator.links = {{"server-2", "lock-store"}, {"server-3", "lock-store"}};
        const auto other = draw_fault_schedule({generator}, 9);
        REQUIRE_FALSE(on(both, "server-1").empty());
        REQUIRE_FALSE(on(both, "server-2").empty());
        CHECK(on(both, "server-1") != on(both, "server-2"));
        CHECK(on(both, "server-2") == on(other, "server-2"));
        RandomStream replay(9, "faults/0/server-2->lock-store");
        CHECK(on(both, "server-2").front() == (midnight + replay.exponential(20_s)).ns);
    }
}

TEST_CASE("every design of a scenario meets the same drawn schedule") {
    const Scenario scenario = parse_scenario(R"({
  "name": "schedule",
  "description": "random pauses under two lock stores",
  "seed": 3,
  "horizon": "10m",
  "servers": ["server-1", "server-2"],
  "network": { "delay": "1ms" },
  "lock": { "store": "redis", "key": "lock:renewals", "ttl": "10s" },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42, 43, 44, 45, 46, 47, 48], "period": "2026-10", "work_per_customer": "4s" },
  "fault_generators": [
    { "pause": "servers", "mean_interval": "3s", "for": { "uniform": ["100ms", "1s"] }, "until": "20s" }
  ],
  "designs": {
    "redis": {},
    "lease-row": { "lock": { "store": "lease-row", "key": "renewals" } }
  }
})",
                                             "schedule.json", metric_names());
    const ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    REQUIRE(outcome.designs.size() == 2);

    const auto pauses_in = [](const Trace& trace) {
        std::vector<std::string> lines;
        for (const auto& event : trace.events())
            if (event.kind == trace_kind::node_paused)
                lines.push_back(fmt::format("{} pause {} for {} ({})", event.at.ns, trace.node_name(event.node),
                                            event.duration("for").ns, event.text("cause")));
        return lines;
    };
    const auto in_redis = pauses_in(outcome.designs[0].trace);
    const auto in_lease_row = pauses_in(outcome.designs[1].trace);
    REQUIRE(in_redis.size() > 5);
    CHECK(in_redis == in_lease_row);
    // And they are the schedule drawn for the scenario's seed, less the pauses that fell
    // inside a longer pause of the same node (the engine keeps the longer one).
    std::vector<std::string> expected;
    std::map<std::string, Instant> paused_until;
    for (const auto& fault : draw_fault_schedule(scenario.designs[0].world.fault_generators, scenario.seed)) {
        const auto& pause = std::get<PauseFault>(fault);
        Instant& until = paused_until[pause.node];
        if (pause.at < until && pause.at + pause.length <= until) continue;
        until = pause.at + pause.length;
        expected.push_back(fault_line(fault));
    }
    CHECK(in_redis == expected);
}
