// runners/shrink_runner.hpp: a failing run shrinks to a small scenario file that loads,
// replays the same kind of violation, and tells its story in a few faults.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/program_support.hpp"
#include "tests/support.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "checks/exploration.hpp"
#include "checks/metrics.hpp"
#include "models/trace_kinds.hpp"
#include "runners/scenario_runner.hpp"
#include "runners/shrink_runner.hpp"
#include "runners/sweep_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

const std::string random_pauses = std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/random-gc-pauses.json";

std::string file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// The first seed at which the design breaks, found by a sweep as a user would.
std::uint64_t first_failing_seed(const std::string& design) {
    const Scenario scenario = load_scenario_file(random_pauses, metric_names());
    const SweepSummary summary = run_sweep(scenario, SeedBlock{1, 2000}, 2, [](std::uint64_t) {});
    for (const auto& tally : summary.designs)
        if (tally.name == design) {
            REQUIRE_FALSE(tally.failing_seeds.empty());
            return tally.failing_seeds.front();
        }
    FAIL("no design " << design);
    return 0;
}

ScenarioOutcome replay(const ShrinkResult& result) {
    const Scenario minimal = parse_scenario(result.minimal.dump(), "minimal.json", metric_names());
    REQUIRE(minimal.designs.size() == 1);
    return run_scenario(minimal, minimal.seed);
}

}  // namespace

TEST_CASE("a failing seed of random-gc-pauses shrinks to one fixed pause that replays the double charge") {
    const std::uint64_t seed = first_failing_seed("unfenced");
    const ShrinkResult result =
        shrink(ShrinkRequest{"random-gc-pauses.json", file_text(random_pauses), "unfenced", seed});
    CHECK(result.violation == "double_charges");
    const auto& minimal = result.minimal;
    CHECK_FALSE(minimal.contains("fault_generators"));
    REQUIRE(minimal["faults"].size() == 1);
    CHECK(minimal["faults"][0].contains("pause"));
    CHECK(minimal["job"]["customers"].size() < 8);
    CHECK(minimal["seed"] == seed);
    CHECK(minimal["description"].get<std::string>().find(" pauses ") != std::string::npos);

    const ScenarioOutcome outcome = replay(result);
    CHECK(outcome.designs.front().metrics.value(Metric::double_charges) > 0);
    CHECK(outcome.held());  // its expect pins the violation it shows
    // Shrinking is deterministic: the same request, the same file.
    const ShrinkResult again =
        shrink(ShrinkRequest{"random-gc-pauses.json", file_text(random_pauses), "unfenced", seed});
    CHECK(again.minimal.dump() == minimal.dump());
}

TEST_CASE("the fenced failure shrinks to the stale first writer: the older token claims the row before the newer") {
    const std::uint64_t seed = first_failing_seed("fenced");
    const ShrinkResult result =
        shrink(ShrinkRequest{"random-gc-pauses.json", file_text(random_pauses), "fenced", seed});
    CHECK(result.violation == "double_charges");
    CHECK(result.minimal["faults"].size() == 1);
    CHECK(result.minimal["servers"].size() == 2);

    const ScenarioOutcome outcome = replay(result);
    const DesignOutcome& design = outcome.designs.front();
    REQUIRE(design.metrics.double_charged.size() == 1);
    const std::int64_t customer = design.metrics.double_charged.front().customer;
    // Both claims of the double-charged row went through, the older token's first: the
    // fence only refuses a token lower than one that already wrote.
    std::vector<std::int64_t> claims;
    for (const auto& event : design.trace.events())
        if (event.kind == trace_kind::db_write && event.integer("customer") == customer && event.has("token") &&
            event.text("status") == "claimed" && event.integer("rows") == 1)
            claims.push_back(event.integer("token"));
    REQUIRE(claims.size() == 2);
    CHECK(claims[0] < claims[1]);
    CHECK(design.metrics.value(Metric::stale_writes_accepted) == 0);
}

TEST_CASE("an explore placement shrinks too, and a run without a violation is refused with what to do") {
    const std::string flagship = std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json";
    const std::string faults =
        R"([{"pause": "server-1", "for": "40s", "kind": "gc", "when": {"event": "job.preparing", "node": "server-1", "customer": 42}}])";
    const ShrinkResult result = shrink(ShrinkRequest{"gc-pause-40s.json", file_text(flagship), "unfenced", 1, faults});
    CHECK(result.violation == "double_charges");
    CHECK(replay(result).designs.front().metrics.value(Metric::double_charges) == 1);

    CHECK_THROWS_WITH(shrink(ShrinkRequest{"gc-pause-40s.json", file_text(flagship), "idempotent", 1}),
                      Catch::Contains("shows no violation") && Catch::Contains("locksim sweep"));
    CHECK_THROWS_WITH(shrink(ShrinkRequest{"gc-pause-40s.json", file_text(flagship), "nope", 1}),
                      Catch::Contains("no design named \"nope\""));

    const auto refused = run_locksim("shrink scenarios/gc-pause-40s.json --design idempotent");
    CHECK(refused.exit_code == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err.find("nothing to shrink") != std::string::npos);
    const auto ambiguous = run_locksim("shrink scenarios/gc-pause-40s.json");
    CHECK(ambiguous.exit_code == 2);
    CHECK(ambiguous.err.find("name the one that failed") != std::string::npos);
}

TEST_CASE("locksim shrink --out writes a file that locksim run replays, and lists what it removed") {
    const auto out = write_temp("minimal.json", "");
    const auto ran = run_locksim("shrink scenarios/gc-pause-40s.json --design unfenced --out " + out);
    CHECK(ran.exit_code == 0);
    CHECK(ran.err.find("removed") != std::string::npos);
    CHECK(ran.err.find("replay it: ") != std::string::npos);
    const auto replayed = run_locksim("run " + out + " --format json");
    CHECK(replayed.exit_code == 0);
    CHECK(replayed.out.find("\"double_charges\": 1") != std::string::npos);
    std::filesystem::remove(out);
}

TEST_CASE("a file that renames every node and speaks its own words shrinks, and the shrunk file keeps both") {
    // The flagship with its servers, provider and database renamed, and its own vocabulary.
    auto scenario =
        nlohmann::ordered_json::parse(file_text(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json"));
    std::string text = scenario.dump();
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"server-1", "payouts-a"}, {"server-2", "payouts-b"}, {"server-3", "payouts-c"}}) {
        for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
            text.replace(at, from.size(), to);
    }
    scenario = nlohmann::ordered_json::parse(text);
    scenario.erase("explore");
    scenario["nodes"] = {{"provider", "acquirer"}, {"database", "payouts-db"}};
    scenario["vocabulary"] = {{"item", "seller"}, {"effect", "payout"}, {"effected", "paid"}, {"provider", "bank"}};
    const auto file = write_temp("renamed.json", scenario.dump(2));
    const auto out = write_temp("renamed-minimal.json", "");
    const auto ran = run_locksim("shrink " + file + " --design unfenced --out " + out);
    INFO(ran.err);
    REQUIRE(ran.exit_code == 0);
    const auto minimal = nlohmann::ordered_json::parse(file_text(out));
    CHECK(minimal["nodes"] == scenario["nodes"]);
    CHECK(minimal["vocabulary"] == scenario["vocabulary"]);
    // Its description speaks the file's words too.
    CHECK_THAT(
        minimal["description"].get<std::string>(),
        Catch::Contains("payouts-a pauses") && Catch::EndsWith("the run shows 1 double payout (double_charges 1)."));
    const auto replayed = run_locksim("run " + out + " --format json");
    CHECK(replayed.exit_code == 0);
    CHECK(replayed.out.find("\"double_charges\": 1") != std::string::npos);
    CHECK(run_locksim("run " + out + " --format trace").out.find("\"acquirer\"") != std::string::npos);
    std::filesystem::remove(file);
    std::filesystem::remove(out);
}

TEST_CASE("locksim shrink --color always marks its narration on stderr, never keeps it plain, and the file has none") {
    const auto out = write_temp("coloured-minimal.json", "");
    const auto coloured =
        run_locksim("shrink scenarios/gc-pause-40s.json --design unfenced --color always --out " + out);
    CHECK(coloured.exit_code == 0);
    CHECK_THAT(coloured.err, Catch::StartsWith("\x1b[1mShrunk in "));
    CHECK_THAT(coloured.err, Catch::Contains("\x1b[1;31mdouble_charges\x1b[0m:"));
    CHECK(file_text(out).find('\x1b') == std::string::npos);
    const auto plain = run_locksim("shrink scenarios/gc-pause-40s.json --design unfenced --color never");
    CHECK(plain.exit_code == 0);
    CHECK(plain.err.find('\x1b') == std::string::npos);
    CHECK(plain.out.find('\x1b') == std::string::npos);
    CHECK(run_locksim("shrink scenarios/gc-pause-40s.json --color sometimes").exit_code == 2);
    std::filesystem::remove(out);
}
