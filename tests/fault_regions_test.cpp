// runners/fault_regions.hpp: explore over a range of lengths finds regions of (start, end)
// that agree with brute force, a run for each fault placed by its time as `run --faults`
// places it, at every point of a grid and at random points.
#include <catch2/catch.hpp>

#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "checks/exploration.hpp"
#include "models/faults/fault.hpp"
#include "models/faults/fault_roles.hpp"
#include "runners/explore_runner.hpp"
#include "runners/fault_regions.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/explore_spec.hpp"
#include "sim/duration_text.hpp"
#include "sim/random.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

// An instant of a region in explore's JSON, as the time since midnight it spells.
Duration region_instant(const nlohmann::json& text) {
    return std::get<Duration>(parse_duration(text.get<std::string>()));
}

// What the regions say a fault of the family from `start` to `end` on `node` breaks.
std::uint32_t regions_say(const DesignExploration& design, const std::string& node, Instant start, Instant end) {
    std::uint32_t said = 0;
    int holding = 0;
    for (const auto& region : design.regions)
        if (region.node == node && region.start.contains(start) && region.end.contains(end)) {
            said = region.violations;
            ++holding;
        }
    REQUIRE(holding <= 1);  // regions never overlap
    return said;
}

// What running the fault shows.
std::uint32_t running_shows(const Design& design, const FaultFamilyPlan& family, const std::string& node, Instant start,
                            Duration length, std::uint64_t seed) {
    WorldSpec world = design.world;
    world.faults = {placed_fault(family.kind, node, start, length, family.details())};
    world.fault_generators.clear();
    return judge_design(design, run_and_check(world, seed, RunOptions{.keep_trace = false}).metrics).violations;
}

struct Disagreement {
    static inline std::uint64_t violating_points = 0;  // of all the points checked, those whose run violates

    std::string design, node;
    Instant start;
    Duration length;
    std::uint32_t said, shown;
};

// Every (start, length) of a grid (`lengths` at starts `step` apart), every region's corners
// and edges, and `random` random points, on every target, against the regions; the
// disagreements.
std::vector<Disagreement> check_against_runs(const Scenario& scenario, const Exploration& exploration,
                                             const std::vector<Duration>& lengths, Duration step, int random) {
    std::vector<Disagreement> wrong;
    RandomStream points(2026, "random points");
    for (const auto& explored : exploration.designs) {
        const Design& design = design_named(scenario, explored.name);
        const auto ranged = std::find_if(explored.families.begin(), explored.families.end(),
                                         [](const FaultFamilyPlan& f) { return f.lengths.has_value(); });
        REQUIRE(ranged != explored.families.end());
        const FaultFamilyPlan& family = *ranged;
        const auto check = [&](const std::string& node, Instant start, Duration length) {
            const std::uint32_t said = regions_say(explored, node, start, start + length);
            const std::uint32_t shown = running_shows(design, family, node, start, length, exploration.seed);
            if (shown != 0) ++Disagreement::violating_points;
            if (said != shown) wrong.push_back(Disagreement{explored.name, node, start, length, said, shown});
        };
        for (const auto& node : family.targets) {
            for (Instant start{}; start <= explored.baseline_end; start += step)
                for (const Duration length : lengths) check(node, start, length);
            // Every region's corners, and the points just outside each of its edges: where
            // a region drawn one nanosecond too wide or too narrow shows.
            for (const auto& region : explored.regions) {
                if (region.node != node) continue;
                const Instant first_start = region.start.from, last_start = region.start.to - Duration{1};
                const Instant first_end = region.end.from, last_end = region.end.to - Duration{1};
                const std::pair<Instant, Instant> corners[] = {
                    {first_start, first_end},
                    {first_start, last_end},
                    {last_start, first_end},
                    {last_start, last_end},
                    {first_start - Duration{1}, first_end},
                    {last_start + Duration{1}, last_end},
                    {first_start, first_end - Duration{1}},
                    {last_start, last_end + Duration{1}},
                };
                for (const auto& [start, end] : corners) {
                    const Duration length = end - start;
                    if (start < Instant{} || start > explored.baseline_end || length < family.lengths->shortest ||
                        length > family.lengths->longest)
                        continue;
                    check(node, start, length);
                }
            }
            for (int k = 0; k < random; ++k) {
                const Instant start{
                    static_cast<std::int64_t>(points.below(static_cast<std::uint64_t>(explored.baseline_end.ns) + 1))};
                check(node, start, points.uniform(family.lengths->shortest, family.lengths->longest));
            }
        }
    }
    return wrong;
}

std::string describe(const std::vector<Disagreement>& wrong) {
    std::string out;
    for (std::size_t k = 0; k < wrong.size() && k < 10; ++k)
        out += fmt::format("{} {} at {} for {}: regions say [{}], the run shows [{}]\n", wrong[k].design, wrong[k].node,
                           format_duration(wrong[k].start - Instant{}), format_duration(wrong[k].length),
                           fmt::join(violation_names(wrong[k].said), ","),
                           fmt::join(violation_names(wrong[k].shown), ","));
    return out;
}

}  // namespace

TEST_CASE("gc-pause-40s: the pause regions agree with a run at every grid point and at random points", "[exhaustive]") {
    const Scenario scenario = load_scenario_file(scenario_path("gc-pause-40s.json"), metric_names());
    REQUIRE(scenario.explore.has_value());
    const Exploration exploration = run_explore(scenario, ExploreOptions{.threads = 2});
    const std::vector<Duration> lengths{1_s, 10_s, 29_s, 30_s + 1_ms, 31_s, 40_s};
    Disagreement::violating_points = 0;
    const auto wrong = check_against_runs(scenario, exploration, lengths, 100_ms, 300);
    INFO(describe(wrong));
    CHECK(wrong.empty());
    CHECK(Disagreement::violating_points > 200);  // the grid meets the regions, not only safe ground

    // The fenced design's stale first writer: a 29 s pause that starts at 2 s, mid-way
    // through customer 41, resumes after the lease ended and claims the row first.
    const DesignExploration& fenced = design_named(exploration, "fenced");
    CHECK(regions_say(fenced, "server-1", at(2_s), at(31_s)) != 0);
    CHECK(design_named(exploration, "unfenced").regions.size() > 0);
    CHECK(design_named(exploration, "idempotent").regions.empty());
}

// The family `key` on `targets`, over a range of lengths `from` to `to`.
ExploreFaultFamily ranged(const std::string& key, const std::vector<std::string>& targets, Duration from, Duration to) {
    ExploreFaultFamily explored;
    explored.shape = explore_shape(key);
    explored.targets = targets;
    explored.range =
        LengthRange{SizeExpression{format_duration(from), false, from}, SizeExpression{format_duration(to), false, to}};
    return explored;
}

ExploreFaultFamily apart_from(ExploreFaultFamily explored, std::vector<std::string> other_side) {
    explored.apart_from = std::move(other_side);
    return explored;
}

// `explored` in the shipped `file`, checked against a run at each point of a grid of
// `lengths` every second, at every region's corners and edges, and at random points; the
// points whose run violates.
// `delay`, when given: every link's delay instead of the file's.
std::uint64_t explore_and_check(const std::string& file, const ExploreFaultFamily& explored,
                                const std::vector<Duration>& lengths, const std::string& only_design = "",
                                const nlohmann::json& delay = nullptr) {
    nlohmann::json text = nlohmann::json::parse(slurp(scenario_path(file)));
    if (!delay.is_null()) text["network"]["delay"] = delay;
    Scenario scenario = parse_scenario(text.dump(), file, metric_names());
    if (!only_design.empty()) scenario.designs = {design_named(scenario, only_design)};
    scenario.explore = ExploreSpec{{explored}};
    const Exploration exploration = run_explore(scenario, ExploreOptions{.threads = 2});
    Disagreement::violating_points = 0;
    const auto wrong = check_against_runs(scenario, exploration, lengths, 1_s, 300);
    INFO(describe(wrong));
    CHECK(wrong.empty());
    return Disagreement::violating_points;
}

const std::vector<Duration> partition_lengths{500_ms, 5_s, 29_s, 31_s, 60_s};

TEST_CASE(
    "partition: a crash of the lock store that restarts empty, and a server cut off from every other node, "
    "agree with a run at every point",
    "[exhaustive]") {
    // Redis without persistence forgets the lock when it restarts: a second holder.
    CHECK(explore_and_check("partition.json", ranged("crash", {"lock-store"}, 100_ms, 90_s), partition_lengths) > 20);
    // The file's own fault: a server cut off from the lock store only keeps charging while
    // its lease runs out unrenewed.
    CHECK(explore_and_check("partition.json",
                            apart_from(ranged("partition", {"server-1"}, 100_ms, 90_s), {"lock-store"}),
                            partition_lengths) > 20);
    // Cut off from the provider too, a server charges nothing twice while it is cut, and a
    // request the partition stops is retransmitted by its stream and lands after the heal
    // (at most 90 s here, far inside the 924.6 s a stream tries for): its job finishes, and
    // regions and runs agree that nothing breaks. (When a partition dropped what TCP would
    // redeliver, the job waited for ever.) Cut off from every node, every node's event starts
    // a class: the costliest exploration here, so one design.
    CHECK(explore_and_check("partition.json", ranged("partition", {"server-2"}, 100_ms, 90_s), partition_lengths,
                            "unfenced") == 0);
}

TEST_CASE("partition: a one-way cut and a loss burst on one link agree with a run at every point", "[exhaustive]") {
    // Only what server-1 sends the lock store is lost: its renewals, so its lease runs out.
    ExploreFaultFamily one_way = apart_from(ranged("partition", {"server-1"}, 100_ms, 60_s), {"lock-store"});
    one_way.one_way = true;
    CHECK(explore_and_check("partition.json", one_way, partition_lengths) > 20);
    // The other way only: the lock store still hears server-1's renewals and keeps its
    // lease, and only the replies are lost, so server-1 stops when its own clock says the
    // lease ran out, before anyone else can hold it. Regions and runs agree: nothing breaks.
    ExploreFaultFamily replies_lost = apart_from(ranged("partition", {"lock-store"}, 100_ms, 60_s), {"server-1"});
    replies_lost.one_way = true;
    CHECK(explore_and_check("partition.json", replies_lost, partition_lengths, "unfenced") == 0);
    // Every message between server-1 and the lock store lost while the burst lasts: their
    // stream retransmits each until the burst ends, so the renewals stall as through a
    // partition. (At 3/4 a retransmission gets through within a few tries, the renewals land
    // a second or so late, and nothing breaks.)
    ExploreFaultFamily burst = apart_from(ranged("loss_burst", {"server-1"}, 100_ms, 60_s), {"lock-store"});
    burst.loss = Odds{1, 1};
    CHECK(explore_and_check("partition.json", burst, partition_lengths, "unfenced") > 0);
}

TEST_CASE("partition: one message held in flight agrees with a run at every point", "[exhaustive]") {
    // A renewal server-1 sends the lock store, held until the lease has run out at the
    // store: server-2 takes the lock while server-1, whose clock says its lease has time
    // left, charges on. Later renewals wait behind the held one on the same connection.
    CHECK(explore_and_check("partition.json",
                            apart_from(ranged("hold_message", {"server-1"}, 100_ms, 60_s), {"lock-store"}),
                            partition_lengths) > 20);
    // A charge server-1 sends the provider, held: it lands late, but server-1 keeps renewing
    // its lease meanwhile and nobody else charges. Regions and runs agree: nothing breaks.
    CHECK(explore_and_check("partition.json",
                            apart_from(ranged("hold_message", {"server-1"}, 100_ms, 60_s), {"payment-provider"}),
                            partition_lengths, "unfenced") == 0);
}

TEST_CASE(
    "gc-pause-40s: a pause of the lock holder, whoever holds it when it strikes, agrees with a run at every point",
    "[exhaustive]") {
    ExploreFaultFamily holder = ranged("pause", {std::string(holder_role)}, 1_ms, 2_min);
    holder.cause = "gc";
    // Who holds changes at an event of some node, so every node's event starts a class.
    CHECK(explore_and_check("gc-pause-40s.json", holder, {1_s, 29_s, 30_s + 1_ms, 31_s, 40_s}, "fenced") > 20);
}

TEST_CASE("explore --format json lists each region exactly, and its example replays to the violation it names") {
    const auto explored =
        run_locksim("explore " + scenario_path("gc-pause-40s.json") + " --design fenced --format json");
    REQUIRE(explored.exit_code == 0);
    const auto json = nlohmann::json::parse(explored.out);
    const auto& fenced = json["designs"][0];
    CHECK(fenced["region_runs"].get<std::uint64_t>() > 0);
    const auto& regions = fenced["regions"];
    REQUIRE(regions.size() > 0);
    for (const auto& region : regions) {
        CHECK(region["fault"] == "pause");
        CHECK(region["start"].contains("from"));
        CHECK(region["end"].contains("to"));
    }
    // The stale first writer: a region that holds a 29 s pause from 2 s.
    bool found = false;
    for (const auto& region : regions)
        if (region["node"] == "server-1" && region_instant(region["start"]["from"]) <= 2_s &&
            2_s < region_instant(region["start"]["to"]) && region_instant(region["end"]["from"]) <= 31_s &&
            31_s < region_instant(region["end"]["to"]))
            found = true;
    CHECK(found);
    const auto replayed =
        run_locksim("run " + scenario_path("gc-pause-40s.json") + " --design fenced --format json --faults '" +
                    nlohmann::json::array({regions[0]["example"]}).dump() + "'");
    CHECK(replayed.exit_code == 1);
    CHECK(replayed.out.find("\"double_charges\": 1,") != std::string::npos);
}

TEST_CASE(
    "partition: the lock holder, whoever holds it when it strikes, cut off from the lock store or its "
    "message to it held, agrees with a run at every point",
    "[exhaustive]") {
    // A holder cut off from the store keeps charging while its lease runs out unrenewed:
    // without fencing, a second holder charges the same customer.
    CHECK(explore_and_check("partition.json",
                            apart_from(ranged("partition", {std::string(holder_role)}, 100_ms, 60_s), {"lock-store"}),
                            partition_lengths, "unfenced") > 0);
    // The holder's renewal held in flight until its lease has run out at the store.
    CHECK(
        explore_and_check("partition.json",
                          apart_from(ranged("hold_message", {std::string(holder_role)}, 100_ms, 60_s), {"lock-store"}),
                          partition_lengths, "unfenced") > 0);
}

// Explores `explored` on partition.json's unfenced design; checks that a violating
// region's replay fault holds `target` (the role and the other side) and that running it
// shows the violations the region names.
void check_role_region_replays(const ExploreFaultFamily& explored, const std::string& words,
                               const std::string& target) {
    Scenario scenario = load_scenario_file(scenario_path("partition.json"), metric_names());
    scenario.designs = {design_named(scenario, "unfenced")};
    scenario.explore = ExploreSpec{{explored}};
    const Exploration exploration = run_explore(scenario, ExploreOptions{.threads = 2});
    const DesignExploration& unfenced = exploration.designs.front();
    CHECK(unfenced.families.front().targets_text() == words);
    const auto violating = std::find_if(unfenced.regions.begin(), unfenced.regions.end(),
                                        [](const FaultRegion& region) { return region.violations != 0; });
    REQUIRE(violating != unfenced.regions.end());
    const nlohmann::ordered_json fault = region_fault(unfenced, *violating);
    CHECK(fault[explored.shape->key].dump() == target);
    const auto replayed =
        run_locksim("run " + scenario_path("partition.json") + " --design unfenced --format json --faults '" +
                    nlohmann::ordered_json::array({fault}).dump() + "'");
    REQUIRE(replayed.exit_code == 0);  // the design expects its double charge
    const auto json = nlohmann::json::parse(replayed.out);
    const auto& metrics = json["designs"][0]["metrics"];
    const std::vector<std::string> names = violation_names(violating->violations);
    REQUIRE_FALSE(names.empty());
    for (const auto& name : names) {
        INFO(name);
        CHECK(metrics[name].get<std::int64_t>() > 0);
    }
}

TEST_CASE("a region of the holder cut off from the lock store, or of its message held, replays by its role") {
    // Lengths a second either side of the 30 s lease, where the regions are: every node's
    // event starts a class of a role, so a narrow range keeps this quick (a third of the runs
    // of 25 s to 35 s; the [exhaustive] tests cover more).
    check_role_region_replays(apart_from(ranged("partition", {std::string(holder_role)}, 29_s, 31_s), {"lock-store"}),
                              "the lock holder apart from lock-store", R"([[{"role":"holder"}],["lock-store"]])");
    check_role_region_replays(
        apart_from(ranged("hold_message", {std::string(holder_role)}, 29_s, 31_s), {"lock-store"}),
        "the lock holder with lock-store", R"([{"role":"holder"},"lock-store"])");
}

// `file` with every link's delay drawn uniformly from 1 to 3 ms, and an explore block of
// `explored` only.
Scenario with_random_delays(const std::string& file, const nlohmann::json& explored) {
    nlohmann::json text = nlohmann::json::parse(slurp(scenario_path(file)));
    text["network"] = {{"delay", {{"uniform", {"1ms", "3ms"}}}}};
    text["explore"] = {{"faults", {explored}}};
    return parse_scenario(text.dump(), file, metric_names());
}

TEST_CASE(
    "gc-pause-40s with random delays: the pause regions agree with a run at every point, two changes of "
    "outcome between two tried ends included",
    "[exhaustive]") {
    // Server 1's renewal on waking lands after the store let its lease expire (a 1.026 ms
    // grant, a 2.035 ms renewal) for ends from 29.998990891 s, and server 1's own clock
    // says the lease is over from 30 s: a double charge in between, inside one gap of the
    // held run whose two ends are safe (issue 52).
    const Scenario scenario =
        with_random_delays("gc-pause-40s.json", {{"pause", "server-1"}, {"for", {{"from", "1ms"}, {"to", "2m"}}}});
    const Exploration exploration = run_explore(scenario, ExploreOptions{.threads = 2});
    for (const std::string design : {"unfenced", "fenced"}) {
        INFO(design);
        const DesignExploration& explored = design_named(exploration, design);
        CHECK(regions_say(explored, "server-1", at(4_s + 11325102_ns), at(29_s + 998990891_ns)) ==
              running_shows(design_named(scenario, design), explored.families.front(), "server-1",
                            at(4_s + 11325102_ns), 25_s + 987665789_ns, exploration.seed));
    }
    CHECK(regions_say(design_named(exploration, "unfenced"), "server-1", at(4_s + 11325102_ns),
                      at(29_s + 998990891_ns)) != 0);
    const std::vector<Duration> lengths{1_s, 10_s, 26_s, 29_s, 30_s + 1_ms, 40_s};
    Disagreement::violating_points = 0;
    const auto wrong = check_against_runs(scenario, exploration, lengths, 250_ms, 400);
    INFO(describe(wrong));
    CHECK(wrong.empty());
    CHECK(Disagreement::violating_points > 100);
}

TEST_CASE(
    "ledger-export with random delays: the holder's pause regions of the start class of 176.356 s agree with a run "
    "at every point",
    "[exhaustive]") {
    // Every node's event starts a class of the holder role, and with random delays each
    // class takes thousands of runs: the suite explores the class of the issue's point, as a
    // shard of the whole exploration would.
    const Scenario scenario = with_random_delays(
        "examples/ledger-export.json", {{"pause", {{"role", "holder"}}}, {"for", {{"from", "1s"}, {"to", "40s"}}}});
    ExploreOptions options{.threads = 2, .shard = 1, .shards = std::numeric_limits<std::uint32_t>::max()};
    const ExploreUnits planned = run_explore_shard(scenario, options);  // plans, runs nothing
    REQUIRE(planned.outcomes.empty());
    options.shard = options.shards = 1;
    const Instant point = at(176_s + 356025396_ns);
    std::uint64_t units_before = 0;  // of the designs before, in the exploration's order
    RandomStream points(2026, "ledger points");
    std::uint64_t violating = 0;
    int point_breaks = 0;  // designs the issue's point breaks
    for (const auto& explored : planned.exploration.designs) {
        INFO(explored.name);
        REQUIRE(explored.placements.empty());  // only the ranged family: a design's units are its classes
        const std::vector<StartClass> classes = family_start_classes(explored, 0);
        const auto holding =
            std::find_if(classes.begin(), classes.end(), [&](const StartClass& c) { return c.last >= point; });
        REQUIRE(holding != classes.end());
        REQUIRE(holding->first <= point);
        const std::size_t k = static_cast<std::size_t>(holding - classes.begin());
        const std::vector<StartClass> around{*holding};
        const std::vector<UnitOutcome> outcomes = rerun_units(scenario, options, {units_before + k});
        units_before += classes.size();
        DesignExploration searched = explored;
        searched.regions = join_regions(explored, 0, around, outcomes);
        const Design& design = design_named(scenario, explored.name);
        const FaultFamilyPlan& family = explored.families.front();
        const std::string& holder = family.targets.front();
        const auto check = [&](Instant start, Instant end) {
            const Duration length = end - start;
            if (length < family.lengths->shortest || length > family.lengths->longest) return;
            INFO("start " << format_duration(start - Instant{}) << ", end " << format_duration(end - Instant{}));
            const std::uint32_t shown = running_shows(design, family, holder, start, length, planned.exploration.seed);
            if (shown != 0) ++violating;
            CHECK(regions_say(searched, holder, start, end) == shown);
        };
        // The issue's point, every region's corners and the points 1 ns outside its edges,
        // and a dense sample of the class.
        check(point, at(194_s + 499500000_ns));
        if (running_shows(design, family, holder, point, at(194_s + 499500000_ns) - point, planned.exploration.seed) !=
            0)
            ++point_breaks;
        for (const auto& region : searched.regions)
            for (const Instant start : {region.start.from, region.start.to - 1_ns})
                for (const Instant end : {region.end.from - 1_ns, region.end.from, region.end.to - 1_ns, region.end.to})
                    if (start >= around.front().first && start <= around.back().last) check(start, end);
        for (int n = 0; n < 300; ++n) {
            const Instant start = around.front().first +
                                  Duration{static_cast<std::int64_t>(points.below(
                                      static_cast<std::uint64_t>((around.back().last - around.front().first).ns + 1)))};
            check(start, start + points.uniform(family.lengths->shortest, family.lengths->longest));
        }
    }
    // The window of ends is under a millisecond wide: the point and the regions' corners
    // meet it, the random sample rarely does.
    CHECK(point_breaks >= 1);
    CHECK(violating >= 5);
}

TEST_CASE(
    "partition with random delays: a one-way cut of the first holder's messages to the lock store, and a crash of the "
    "lock store, agree with a run at every point",
    "[exhaustive]") {
    // Exponential delays (1 ms at least, 2 ms on average): a renewal may overtake nothing
    // (each direction delivers in order) but lands at any distance from the store's expiry.
    // Server 2 wins the lock first with these delays.
    const nlohmann::json exponential = {{"exponential", {{"min", "1ms"}, {"mean", "2ms"}}}};
    ExploreFaultFamily one_way = apart_from(ranged("partition", {"server-2"}, 100_ms, 60_s), {"lock-store"});
    one_way.one_way = true;
    CHECK(explore_and_check("partition.json", one_way, partition_lengths, "", exponential) > 20);
    const nlohmann::json uniform = {{"uniform", {"1ms", "3ms"}}};
    CHECK(explore_and_check("partition.json", ranged("crash", {"lock-store"}, 100_ms, 90_s), partition_lengths,
                            "unfenced", uniform) > 20);
}
