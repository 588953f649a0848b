// Did the faults matter? Each design with faults is run again without each of them and
// without any: a fault that changed nothing is inert, and a design whose faults all missed
// the lock passes vacuously, whatever their kind. The engineer's false pass: a pause by
// name on a server that was only waiting, or a delay spike on a link nobody used.
#include <catch2/catch.hpp>

#include "tests/program_support.hpp"
#include "tests/small_explore.hpp"
#include "tests/support.hpp"

#include <nlohmann/json.hpp>

#include <string>

#include "checks/metrics.hpp"
#include "reports/fault_text.hpp"
#include "runners/scenario_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;

namespace {

// gc-pause-40s with only its fenced design, which expects no double charge and nothing
// else, and these faults: a file a newcomer might write. Without faults, server 1 holds the
// lock from 0 s and renews it at 10 s while servers 2 and 3 wait; it finishes at 12.028 s,
// and servers 2 and 3 each take the lock in turn, find every customer charged, and finish
// by 12.614 s, when the run ends.
std::string fenced_file(const std::string& faults, const std::string& name = "fenced-only.json") {
    auto scenario = nlohmann::json::parse(
        locksim::testing::slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json"));
    scenario.erase("explore");
    scenario["faults"] = nlohmann::json::parse(faults);
    auto fenced = scenario["designs"]["fenced"];
    fenced["expect"] = {{"double_charges", 0}};
    scenario["designs"] = {{"fenced", fenced}};
    return locksim::testing::write_temp(name, scenario.dump(2));
}

DesignOutcome fenced_with(const std::string& faults) {
    const Scenario scenario = load_scenario_file(fenced_file(faults), metric_names());
    ScenarioOutcome outcome = run_scenario(scenario, scenario.seed);
    REQUIRE(outcome.designs.size() == 1);
    return std::move(outcome.designs.front());
}

}  // namespace

TEST_CASE("a pause on a server that was only waiting is inert, and the design's pass is flagged as vacuous") {
    // At 6 s server-1 holds the lock; server-2 waits for it.
    const DesignOutcome run = fenced_with(R"([{"pause": "server-2", "at": "6s", "for": "40s"}])");
    REQUIRE(run.faults);
    REQUIRE(run.faults->each.size() == 1);
    const FaultEffect& pause = run.faults->each.front();
    CHECK(pause.inert());
    CHECK_FALSE(pause.reached_the_lock);
    REQUIRE(pause.struck.size() == 1);
    CHECK(run.trace.node_name(pause.struck.front().target) == "server-2");
    CHECK(pause.struck.front().was_doing == "was not holding the lock");
    CHECK(pause.without_it.metrics.empty());
    CHECK(run.faults->all_missed());
    CHECK(run.faults->held_without_faults);
    CHECK(run.held());
    CHECK(run.passes_only_with_inert_faults());

    const auto lines = describe_inert_faults(run);
    REQUIRE(lines.size() == 1);
    CHECK_THAT(lines.front(), Catch::Contains("struck server-2 at 6.000s, which was not holding the lock") &&
                                  Catch::Contains("{\"role\": \"holder\"}"));
    CHECK_THAT(describe_all_inert(run), Catch::Contains("every fault was inert"));
}

TEST_CASE("the same pause aimed at the holder matters: the fence refuses the stale write") {
    const DesignOutcome run = fenced_with(R"([{"pause": {"role": "holder"}, "at": "6s", "for": "40s"}])");
    REQUIRE(run.faults);
    const FaultEffect& pause = run.faults->each.front();
    CHECK_FALSE(pause.inert());
    CHECK(pause.reached_the_lock);
    CHECK(pause.struck.front().was_doing == "held the lock");
    CHECK_FALSE(pause.without_it.no_story_change());
    CHECK_THAT(pause.without_it.metrics, Catch::VectorContains(std::string("stale_writes_rejected 1 (0 without it)")));
    CHECK_FALSE(run.passes_only_with_inert_faults());
    CHECK(describe_inert_faults(run).empty());
    CHECK(describe_all_inert(run).empty());
}

TEST_CASE("a holder paused for less than its lease is absorbed: inert, but no vacuous pass") {
    const DesignOutcome run = fenced_with(R"([{"pause": {"role": "holder"}, "at": "6s", "for": "2s"}])");
    REQUIRE(run.faults);
    const FaultEffect& pause = run.faults->each.front();
    CHECK(pause.inert());
    CHECK(pause.without_it.no_story_change());
    CHECK(pause.reached_the_lock);
    CHECK_FALSE(run.faults->all_missed());
    CHECK_FALSE(run.passes_only_with_inert_faults());
    REQUIRE(describe_inert_faults(run).size() == 1);
    CHECK_THAT(describe_inert_faults(run).front(), Catch::Contains("The design absorbed it."));
}

TEST_CASE("faults that never struck, or found no one in their role, are inert and say so") {
    const DesignOutcome run = fenced_with(R"([
        {"pause": "server-1", "for": "40s", "when": {"event": "job.preparing", "customer": 999}},
        {"pause": {"role": "holder"}, "at": "0s", "for": "40s"},
        {"pause": {"role": "holder"}, "at": "6s", "for": "40s"}])");
    REQUIRE(run.faults);
    REQUIRE(run.faults->each.size() == 3);
    CHECK(run.faults->each[0].struck.empty());
    CHECK(run.faults->each[0].inert());
    REQUIRE(run.faults->each[1].struck.size() == 1);
    CHECK(run.faults->each[1].struck.front().role == "none");
    CHECK(run.faults->each[1].inert());
    CHECK_FALSE(run.faults->each[2].inert());
    const auto lines = describe_inert_faults(run);
    REQUIRE(lines.size() == 2);
    CHECK_THAT(lines[0], Catch::StartsWith("fault 1 (/faults/0) never struck") &&
                             Catch::Contains("no event of the run matched it"));
    CHECK_THAT(lines[1], Catch::StartsWith("fault 2 (/faults/1) found no one in its role at 0.000s"));
}

TEST_CASE("faults that never struck are judged without running again: the run without them is the same run") {
    // Judging takes a run without each fault that struck, and none for one that never did:
    // what that fault left in the queue never fired, so leaving it out changes no event.
    const std::string faults = R"([
        {"pause": "server-1", "at": "6s", "for": "40s"},
        {"pause": "server-1", "for": "40s", "when": {"event": "job.preparing", "customer": 999}},
        {"pause": "server-2", "at": "50m", "for": "1s"}])";
    const DesignOutcome run = fenced_with(faults);
    REQUIRE(run.faults);
    REQUIRE(run.faults->each.size() == 3);
    CHECK_FALSE(run.faults->each[0].struck.empty());
    CHECK(run.faults->each[1].struck.empty());
    CHECK(run.faults->each[2].struck.empty());
    CHECK(run.faults->each[1].without_it.no_story_change());
    CHECK(run.faults->each[2].without_it.no_story_change());

    // The premise, checked: the world with only the fault that struck runs event for event
    // as the judged run did.
    Scenario scenario = load_scenario_file(fenced_file(faults), metric_names());
    WorldSpec world = scenario.designs.front().world;
    world.faults.resize(1);
    const Trace without = run_world(world, scenario.seed).trace;
    REQUIRE(without.events().size() == run.trace.events().size());
    for (std::size_t e = 0; e < without.events().size(); ++e) {
        const TraceEvent& a = without.events()[e];
        const TraceEvent& b = run.trace.events()[e];
        INFO("event " << e << ": " << a.kind.name() << " and " << b.kind.name());
        REQUIRE((a.at == b.at && a.node == b.node && a.kind == b.kind && a.fields().size() == b.fields().size()));
        for (std::size_t f = 0; f < a.fields().size(); ++f) {
            CHECK(a.fields().at(f).key == b.fields().at(f).key);
            CHECK(a.fields().at(f).value == b.fields().at(f).value);
        }
    }
}

TEST_CASE("a fault placed at a time the run never reached is told to check its \"at\", not a \"when\"") {
    // The run ends at 12.614 s: a pause placed at 50 minutes never comes.
    const DesignOutcome run = fenced_with(R"([{"pause": "server-1", "at": "50m", "for": "40s"}])");
    REQUIRE(run.faults);
    REQUIRE(run.faults->each.size() == 1);
    CHECK(run.faults->each[0].struck.empty());
    const auto lines = describe_inert_faults(run);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] ==
          "fault 1 (/faults/0) never struck; the run without it tells the same story. Check its \"at\": the run "
          "ended at 12.614s, before 50m.");
    // A page for readers names the fault by its number alone.
    const auto for_readers = describe_inert_faults(run, false, FaultNaming::number_only);
    REQUIRE(for_readers.size() == 1);
    CHECK_THAT(for_readers[0], Catch::StartsWith("fault 1 never struck; the run without it tells the same story."));
}

TEST_CASE("a design without faults is not judged, and sweeps do not judge") {
    const DesignOutcome run = fenced_with("[]");
    CHECK_FALSE(run.faults);
    CHECK_FALSE(run.passes_only_with_inert_faults());
}

TEST_CASE("the judgement is the same on every run of the same file and seed") {
    const auto file = fenced_file(R"([{"pause": "server-2", "at": "6s", "for": "40s"}])");
    const auto first = locksim::testing::run_locksim("run " + file + " --format json");
    const auto second = locksim::testing::run_locksim("run " + file + " --format json");
    CHECK(first.out == second.out);
    CHECK_THAT(first.out, Catch::Contains("\"passes_only_with_inert_faults\": true"));
}

TEST_CASE("check warns about a vacuous pass, and fails it with --refuse-inert") {
    // The pause strikes server-2, which only waits for the lock.
    const auto file = fenced_file(R"([{"pause": "server-2", "at": "6s", "for": "40s"}])");

    const auto warned = locksim::testing::run_locksim("check " + file);
    CHECK_THAT(warned.out, Catch::Contains("WARN gc-pause-40s fenced: passes only because every fault was inert"));
    CHECK_THAT(warned.out, Catch::Contains("(--refuse-inert fails it)"));
    CHECK_THAT(warned.out, Catch::Contains("PASS gc-pause-40s fenced"));

    const auto refused = locksim::testing::run_locksim("check --refuse-inert " + file);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.out, Catch::Contains("FAIL gc-pause-40s fenced: passes only because every fault was inert"));

    // A clock step on the holder that the monotonic design absorbs is evidence, not a warning.
    const auto absorbed = locksim::testing::run_locksim("check --refuse-inert scenarios/wall-clock-durations.json");
    CHECK(absorbed.exit_code == 0);
    CHECK(absorbed.out.find("WARN") == std::string::npos);

    // The shipped file (its explore block cut down): its pause strikes the holder, nothing to warn about.
    const auto shipped = locksim::testing::run_locksim(
        "check --refuse-inert " +
        locksim::testing::write_temp("shipped.json", locksim::testing::flagship_with_small_explore().dump(2)));
    CHECK(shipped.exit_code == 0);
    CHECK(shipped.out.find("WARN") == std::string::npos);
}

TEST_CASE("a delay spike on a link that carries nothing is inert, and check --refuse-inert fails the pass it leaves") {
    // Server 3 waits for the lock from 0 s to 12.6 s and never talks to the payment provider.
    const auto faults =
        R"([{"delay_spike": ["server-3", "payment-provider"], "at": "6s", "for": "10s", "extra": "5s"}])";
    const DesignOutcome run = fenced_with(faults);
    REQUIRE(run.faults);
    const FaultEffect& spike = run.faults->each.front();
    REQUIRE(spike.struck.size() == 1);
    CHECK(spike.struck.front().role == "network");
    CHECK(spike.struck.front().messages.total() == 0);
    CHECK(spike.struck.front().was_doing == "no message crossed its links while it held");
    CHECK(spike.missed());
    CHECK(spike.inert());
    CHECK(run.faults->all_missed());
    CHECK(run.passes_only_with_inert_faults());

    const auto file = fenced_file(faults);
    const std::string why =
        "fault 1 (/faults/0) struck the network at 6.000s: no message crossed its links while it held";
    const auto ran = locksim::testing::run_locksim("run " + file);
    CHECK_THAT(ran.out, Catch::Contains("INERT gc-pause-40s fenced: " + why));
    CHECK_THAT(ran.out, Catch::Contains("WARN gc-pause-40s fenced: every fault was inert"));
    const auto json = nlohmann::json::parse(locksim::testing::run_locksim("run " + file + " --format json").out);
    const auto& each = json.at("designs")[0].at("faults").at("each")[0];
    CHECK(each.at("inert") == true);
    CHECK(each.at("reached_the_lock") == false);
    CHECK(each.at("struck")[0].at("messages").at("held") == 0);

    const auto warned = locksim::testing::run_locksim("check " + file);
    CHECK(warned.exit_code == 0);
    CHECK_THAT(warned.out, Catch::Contains("WARN gc-pause-40s fenced: passes only because every fault was inert") &&
                               Catch::Contains("Missed: " + why) && Catch::Contains("(--refuse-inert fails it)"));
    const auto refused = locksim::testing::run_locksim("check --refuse-inert " + file);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.out, Catch::Contains("FAIL gc-pause-40s fenced: passes only because every fault was inert") &&
                                Catch::Contains("Missed: " + why));
}

TEST_CASE("a held message is inert when its sender sends nothing, and reaches the lock when it is the holder's") {
    // Server 3 never talks to the payment provider: nothing is held.
    const DesignOutcome idle =
        fenced_with(R"([{"hold_message": ["server-3", "payment-provider"], "at": "6s", "for": "10s"}])");
    REQUIRE(idle.faults);
    CHECK(idle.faults->each.front().struck.front().messages.total() == 0);
    CHECK(idle.faults->each.front().inert());
    CHECK(idle.passes_only_with_inert_faults());
    // Server 1 holds the lock: its next message to the store (a renewal) is held.
    const DesignOutcome holder =
        fenced_with(R"([{"hold_message": ["server-1", "lock-store"], "at": "6s", "for": "10s"}])");
    REQUIRE(holder.faults);
    const auto& struck = holder.faults->each.front().struck.front();
    CHECK(struck.messages.held == 1);
    CHECK(struck.messages.of_the_lock == 1);
    CHECK_FALSE(holder.faults->each.front().inert());
}

TEST_CASE("a delay spike on a waiting server's link holds back only its own requests: it missed the lock") {
    // Server 2 asks the store for the lock every second or two while server 1 holds it.
    const DesignOutcome run =
        fenced_with(R"([{"delay_spike": ["server-2", "lock-store"], "at": "2s", "for": "8s", "extra": "500ms"}])");
    REQUIRE(run.faults);
    const FaultEffect& spike = run.faults->each.front();
    REQUIRE(spike.struck.size() == 1);
    const MessagesTouched& messages = spike.struck.front().messages;
    CHECK(messages.held > 0);
    CHECK(messages.of_the_lock == 0);
    CHECK_THAT(spike.struck.front().was_doing,
               Catch::StartsWith("it held back ") && Catch::Contains("messages, none of them the lock's"));
    CHECK(spike.missed());
    CHECK(spike.inert());
    CHECK(run.passes_only_with_inert_faults());
}

TEST_CASE("a delay spike that holds back the holder's renewal past its lease is not inert") {
    // Server 1 renews at 10 s; held back 40 s, the renewal comes after its 30 s lease ran out.
    const DesignOutcome run =
        fenced_with(R"([{"delay_spike": ["server-1", "lock-store"], "at": "6s", "for": "10s", "extra": "40s"}])");
    REQUIRE(run.faults);
    const FaultEffect& spike = run.faults->each.front();
    REQUIRE(spike.struck.size() == 1);
    CHECK(spike.struck.front().messages.held > 0);
    CHECK(spike.struck.front().messages.of_the_lock == spike.struck.front().messages.total());
    CHECK(spike.reached_the_lock);
    CHECK_FALSE(spike.without_it.no_story_change());
    CHECK_FALSE(spike.inert());
    CHECK_FALSE(run.faults->all_missed());
    CHECK_FALSE(run.passes_only_with_inert_faults());

    const auto checked = locksim::testing::run_locksim(
        "check --refuse-inert " +
        fenced_file(R"([{"delay_spike": ["server-1", "lock-store"], "at": "6s", "for": "10s", "extra": "40s"}])"));
    CHECK(checked.exit_code == 0);
    CHECK(checked.out.find("WARN") == std::string::npos);
}

TEST_CASE("a short delay spike on the holder's renewal is absorbed: inert, but evidence") {
    // The renewal sent at 10 s arrives 2 s late, well within the lease; the spike is over
    // before server 1 releases the lock at 12 s.
    const DesignOutcome run =
        fenced_with(R"([{"delay_spike": ["server-1", "lock-store"], "at": "6s", "for": "5s", "extra": "2s"}])");
    REQUIRE(run.faults);
    const FaultEffect& spike = run.faults->each.front();
    CHECK(spike.reached_the_lock);
    CHECK(spike.inert());
    CHECK_FALSE(run.passes_only_with_inert_faults());
    REQUIRE(describe_inert_faults(run).size() == 1);
    CHECK_THAT(describe_inert_faults(run).front(), Catch::Contains("it held back 1 message, one of the lock's") &&
                                                       Catch::Contains("The design absorbed it."));
}

TEST_CASE("a partition that cut no message, a loss burst that lost none: both missed the lock") {
    // Servers 2 and 3 hold the lock only to find every customer charged: neither talks to
    // the payment provider.
    const DesignOutcome run = fenced_with(R"([
        {"partition": [["server-3"], ["payment-provider"]], "at": "6s", "heal_after": "10s"},
        {"loss_burst": ["server-2", "payment-provider"], "at": "6s", "for": "10s", "loss": "1/1"}])");
    REQUIRE(run.faults);
    REQUIRE(run.faults->each.size() == 2);
    for (const FaultEffect& effect : run.faults->each) {
        REQUIRE(effect.struck.size() == 1);
        CHECK(effect.struck.front().messages.total() == 0);
        CHECK(effect.missed());
        CHECK(effect.inert());
    }
    CHECK(run.passes_only_with_inert_faults());
}

TEST_CASE("a partition that cuts the holder off from the store reaches the lock") {
    const DesignOutcome run = fenced_with(R"([{"partition": [["server-1"], ["lock-store"]], "at": "6s"}])");
    REQUIRE(run.faults);
    const FaultEffect& partition = run.faults->each.front();
    REQUIRE(partition.struck.size() == 1);
    CHECK(partition.struck.front().messages.cut > 0);
    CHECK(partition.struck.front().messages.of_the_lock > 0);
    CHECK(partition.reached_the_lock);
    CHECK_FALSE(run.passes_only_with_inert_faults());
}

TEST_CASE("a crash of a server that had finished its job, and a clock step nobody read, fail check --refuse-inert") {
    // Server 1 finishes at 12.028 s; the run ends at 12.614 s.
    const auto crash = fenced_file(R"([{"crash": "server-1", "at": "12.1s"}])", "crash.json");
    const auto refused = locksim::testing::run_locksim("check --refuse-inert " + crash);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.out, Catch::Contains("FAIL gc-pause-40s fenced: passes only because every fault was inert") &&
                                Catch::Contains("Missed: fault 1 (/faults/0) struck server-1 at 12.100s, which had "
                                                "finished its job"));

    // The payment provider's wall clock times no lease; server 1's is stepped after its job.
    const auto clock = fenced_file(R"([{"clock_step": "payment-provider", "at": "1s", "by": "-30s"},
                                      {"clock_step": "server-1", "at": "12.1s", "by": "-30s"}])",
                                   "clock.json");
    const auto unread = locksim::testing::run_locksim("check --refuse-inert " + clock);
    CHECK(unread.exit_code == 1);
    CHECK_THAT(unread.out,
               Catch::Contains("fault 1 (/faults/0) struck payment-provider (payment provider) at 1.000s") &&
                   Catch::Contains("fault 2 (/faults/1) struck server-1 at 12.100s, which had finished "
                                   "its job"));
}

TEST_CASE("a clock step on a waiting server counts once that server takes the lock, its clock still stepped") {
    // Server 2 waits at 6 s and holds the lock from 12.4 s: it times that lease on the stepped clock.
    const DesignOutcome run = fenced_with(R"([{"clock_step": "server-2", "at": "6s", "by": "-30s"}])");
    REQUIRE(run.faults);
    const FaultEffect& step = run.faults->each.front();
    CHECK(step.reached_the_lock);
    REQUIRE(step.struck.size() == 1);
    CHECK(step.struck.front().was_doing == "was not holding the lock, and held it later, its clock still changed");
    CHECK_FALSE(run.faults->all_missed());
    CHECK_FALSE(run.passes_only_with_inert_faults());
}

TEST_CASE("a pause on the billing database reaches the lock when a database lock lives there and is held") {
    auto scenario = nlohmann::json::parse(
        locksim::testing::slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/db-advisory-lock.json"));
    scenario["faults"] = nlohmann::json::parse(R"([{"pause": "billing-db", "at": "3s", "for": "1s"}])");
    const auto file = locksim::testing::write_temp("db-pause.json", scenario.dump(2));
    const ScenarioOutcome outcome = run_scenario(load_scenario_file(file, metric_names()), 1);
    REQUIRE(outcome.designs.size() == 2);
    // At 3 s server 1 holds the advisory lock, in the billing database's session table.
    const FaultEffect& in_the_store = outcome.designs[0].faults->each.front();
    REQUIRE(outcome.designs[0].name == "advisory-lock");
    CHECK(in_the_store.struck.front().role == "billing database");
    CHECK(in_the_store.struck.front().was_doing == "held a lock");
    CHECK(in_the_store.reached_the_lock);
    // With the lock in Redis, the billing database only holds rows.
    const FaultEffect& beside_it = outcome.designs[1].faults->each.front();
    REQUIRE(outcome.designs[1].name == "redis-lease");
    CHECK(beside_it.struck.front().was_doing.empty());
    CHECK_FALSE(beside_it.reached_the_lock);
}

TEST_CASE("a vacuous pass whose generators drew nothing says that no fault was drawn, not an empty list") {
    // No fault of its own, and pauses once in five years per server: none in this run.
    auto scenario = nlohmann::json::parse(locksim::testing::slurp(fenced_file("[]")));
    scenario["fault_generators"] =
        nlohmann::json::parse(R"([{"pause": "servers", "mean_interval": "1825d", "for": {"uniform": ["1s", "2s"]}}])");
    const auto file = locksim::testing::write_temp("never-drawn.json", scenario.dump(2));
    const auto refused = locksim::testing::run_locksim("check --refuse-inert " + file);
    CHECK(refused.exit_code == 1);
    CHECK_THAT(refused.out,
               Catch::Contains("FAIL gc-pause-40s fenced: passes only because every fault was inert") &&
                   Catch::Contains(". Missed: no fault was drawn: the design's generators drew none that struck in "
                                   "this run\n"));
}
