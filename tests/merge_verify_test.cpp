// `merge --verify K`: a shard edited consistently (its per-seed counts with its totals), or
// run from an edited scenario and given the other shards' SHA-256, adds up and merges into
// wrong totals with exit 0; rerunning some of its seeds is what refuses it. The shards here
// are written by the program, edited as a person would, and merged by the program.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "checks/sweep_summary.hpp"
#include "runners/shard_verify.hpp"
#include "tests/program_support.hpp"

using locksim::testing::fresh_directory;
using locksim::testing::run_locksim;
using locksim::testing::slurp;

namespace {

using Json = nlohmann::ordered_json;

void write(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// `text` with its first `from` replaced by `to`.
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// Shards 1 and 2 of `seeds` seeds of `scenario` into dir/s1.json and dir/s2.json.
void sweep_two_shards(const std::filesystem::path& dir, const std::string& scenario, int seeds) {
    for (int i = 1; i <= 2; ++i) {
        const auto ran = run_locksim(fmt::format("sweep {} --seeds {} --shard {}/2 --jobs 2 --output '{}'", scenario,
                                                 seeds, i, (dir / fmt::format("s{}.json", i)).string()));
        REQUIRE(ran.exit_code == 0);
    }
}

std::string merge(const std::filesystem::path& dir, const std::string& options = "") {
    return fmt::format("merge {} '{}' '{}'", options, (dir / "s1.json").string(), (dir / "s2.json").string());
}

}  // namespace

TEST_CASE("merge --verify reruns a shard's failing seeds first and refuses one whose counts were edited") {
    const auto dir = fresh_directory("verify_edited_count");
    sweep_two_shards(dir, "scenarios/random-gc-pauses.json", 200);
    const auto clean = run_locksim(merge(dir, "--verify 4"));
    REQUIRE(clean.exit_code == 0);
    CHECK(clean.err ==
          "merge --verify: reran 8 seeds of 2 shards (3 of them failing; 24 runs in all): every run counted what its "
          "shard recorded\n");
    CHECK(clean.out == run_locksim(merge(dir)).out);

    // Seed 86 of the unfenced design: its charge twice edited away, with the total, so
    // that the shard still adds up and merges.
    std::string text = slurp(dir / "s1.json");
    text = replaced(text, "\"double_charges\": 2,", "\"double_charges\": 1,");
    text = replaced(text, "85:1,0,1,1,0,1,0,0,0,0,0", "85:1,0,1,0,0,1,0,0,0,0,0");
    write(dir / "s1.json", text);
    CHECK(run_locksim(merge(dir)).exit_code == 0);
    const auto refused = run_locksim(merge(dir, "--verify 2"));
    CHECK(refused.exit_code == 2);
    CHECK(refused.out.empty());
    CHECK(refused.err ==
          fmt::format("merge --verify: {}: shard 1/2 does not reproduce: seed 86 of design unfenced: the shard says "
                      "double_charges 0, the run counts 1; the shard was edited or ran another scenario: rerun it: "
                      "locksim sweep scenarios/random-gc-pauses.json --seeds 200 --start 1 --shard 1/2\n",
                      (dir / "s1.json").string()));
}

TEST_CASE("merge --verify over a whole shard finds violating runs edited out of it altogether") {
    const auto dir = fresh_directory("verify_hidden_runs");
    sweep_two_shards(dir, "scenarios/random-gc-pauses.json", 200);
    // Both violating runs of shard 1's unfenced design (seeds 20 and 86) hand-edited to
    // clean ones that a fault reached: counts, kept seeds, rate and rows, all consistent.
    Json shard = Json::parse(slurp(dir / "s1.json"));
    Json& unfenced = shard["designs"][0];
    REQUIRE(unfenced["name"] == "unfenced");
    std::string rows = unfenced["per_seed"];
    rows = replaced(rows, "19:1,0,1,1,0,1,0,0,0,0,0", "19:0,0,1,0,0,0,0,0,0,0,0");
    rows = replaced(rows, "85:1,0,1,1,0,1,0,0,0,0,0", "85:0,0,1,0,0,0,0,0,0,0,0");
    for (const char* total : {"runs_with_violation", "double_charges", "overlapping_holders"}) unfenced[total] = 0;
    unfenced["failing_seeds"] = Json::array();
    unfenced["violation_rate"] = 0.0;
    unfenced["wilson_95"] = {0.0, locksim::wilson_interval(0, 100).high};
    unfenced["per_seed"] = rows;
    write(dir / "s1.json", shard.dump(2));
    const auto merged = run_locksim(merge(dir, "--format json"));
    REQUIRE(merged.exit_code == 0);
    CHECK(Json::parse(merged.out)["designs"][0]["runs_with_violation"] == 1);  // not 3: wrong, and exit 0

    const auto refused = run_locksim(merge(dir, "--verify 100"));
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("s1.json: shard 1/2 does not reproduce: seed 20 of design unfenced: the "
                                            "shard says runs_with_violation 0, the run counts 1"));
}

TEST_CASE("merge --verify refuses a shard of an edited scenario that carries the other shard's SHA-256") {
    const auto dir = fresh_directory("verify_edited_scenario");
    // The same world with a 10 s pause instead of 40 s: shorter than the lease, no overlap.
    const std::string original = slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json");
    write(dir / "edited.json", replaced(original, R"({ "pause": "server-1", "at": "6s", "for": "40s", "kind": "gc" })",
                                        R"({ "pause": "server-1", "at": "6s", "for": "10s", "kind": "gc" })"));
    REQUIRE(run_locksim(fmt::format("sweep scenarios/gc-pause-40s.json --seeds 6 --shard 1/2 --output '{}'",
                                    (dir / "s1.json").string()))
                .exit_code == 0);
    REQUIRE(run_locksim(fmt::format("sweep '{}' --seeds 6 --shard 2/2 --output '{}'", (dir / "edited.json").string(),
                                    (dir / "s2.json").string()))
                .exit_code == 0);
    const auto honest = run_locksim(merge(dir));
    CHECK(honest.exit_code == 2);
    CHECK_THAT(honest.err, Catch::Contains("(the scenario file's bytes differ: it was edited between the shards)"));

    // Shard 2 made to look like a shard of the file: its hash, path and command.
    const Json first = Json::parse(slurp(dir / "s1.json"));
    Json second = Json::parse(slurp(dir / "s2.json"));
    second["file"] = first["file"];
    second["provenance"]["scenario_sha256"] = first["provenance"]["scenario_sha256"];
    second["provenance"]["command"] = replaced(first["provenance"]["command"], "--shard 1/2", "--shard 2/2");
    write(dir / "s2.json", second.dump(2));
    CHECK(run_locksim(merge(dir)).exit_code == 0);
    const auto refused = run_locksim(merge(dir, "--verify 1"));
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("s2.json: shard 2/2 does not reproduce: seed 5 of design unfenced: the "
                                            "shard says runs_with_violation 0, the run counts 1"));
}

TEST_CASE("a changed file of samples is named, between the shards and since they ran") {
    const auto dir = fresh_directory("verify_samples");
    Json scenario = Json::parse(slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/random-gc-pauses.json"));
    scenario.erase("$schema");
    scenario["fault_generators"][0]["for"] = {{"observed", {{"file", "pauses.txt"}, {"unit", "ms"}}}};
    write(dir / "random.json", scenario.dump(2));
    write(dir / "pauses.txt", "500\n15000\n900\n");
    const std::string file = (dir / "random.json").string();
    REQUIRE(
        run_locksim(fmt::format("sweep '{}' --seeds 20 --shard 1/2 --output '{}'", file, (dir / "s1.json").string()))
            .exit_code == 0);
    write(dir / "pauses.txt", "500\n15000\n900\n30000\n");
    REQUIRE(
        run_locksim(fmt::format("sweep '{}' --seeds 20 --shard 2/2 --output '{}'", file, (dir / "s2.json").string()))
            .exit_code == 0);
    const auto between = run_locksim(merge(dir));
    CHECK(between.exit_code == 2);
    CHECK_THAT(between.err, Catch::Contains("(the file of samples pauses.txt changed between the shards (its SHA-256 "
                                            "is ") &&
                                !Catch::Contains("edited"));

    // Both shards of the first samples, and the samples changed since.
    write(dir / "pauses.txt", "500\n15000\n900\n");
    REQUIRE(
        run_locksim(fmt::format("sweep '{}' --seeds 20 --shard 2/2 --output '{}'", file, (dir / "s2.json").string()))
            .exit_code == 0);
    REQUIRE(run_locksim(merge(dir)).exit_code == 0);
    write(dir / "pauses.txt", "500\n15000\n901\n");
    const auto since = run_locksim(merge(dir, "--verify 1"));
    CHECK(since.exit_code == 2);
    CHECK_THAT(since.err, Catch::StartsWith(fmt::format("merge --verify: {} is not the scenario the shards ran: the "
                                                        "file of samples pauses.txt changed since (its SHA-256 is ",
                                                        file)));
}

TEST_CASE("merge --verify checks every field a rerun recomputes: the given fault's probability and text, the words") {
    const auto dir = fresh_directory("verify_recomputed");
    for (int i = 1; i <= 2; ++i)
        REQUIRE(run_locksim(fmt::format("sweep scenarios/random-gc-pauses.json --seeds 40 --given-fault 0 --shard "
                                        "{}/2 --jobs 2 --output '{}'",
                                        i, (dir / fmt::format("s{}.json", i)).string()))
                    .exit_code == 0);
    REQUIRE(run_locksim(merge(dir, "--verify 200")).exit_code == 0);
    const Json s1 = Json::parse(slurp(dir / "s1.json")), s2 = Json::parse(slurp(dir / "s2.json"));
    // Both shards edited alike, so that they still agree with each other and merge.
    const auto edit_both = [&](const std::function<void(Json&)>& edit) {
        Json a = s1, b = s2;
        edit(a);
        edit(b);
        write(dir / "s1.json", a.dump(2));
        write(dir / "s2.json", b.dump(2));
        REQUIRE(run_locksim(merge(dir)).exit_code == 0);
        const auto verified = run_locksim(merge(dir, "--verify 200"));
        CHECK(verified.exit_code == 2);
        CHECK(verified.out.empty());
        return verified.err;
    };
    CHECK_THAT(
        edit_both([](Json& shard) { shard["given_fault"]["probability"] = 1e-12; }),
        Catch::StartsWith(fmt::format("merge --verify: {}: shard 1/2 does not reproduce: it says given_fault is ",
                                      (dir / "s1.json").string())) &&
            Catch::Contains("\"probability\":1e-12") && Catch::Contains(", a rerun computes ") &&
            Catch::Contains("rerun it: locksim sweep scenarios/random-gc-pauses.json --seeds 40 --start 1 "
                            "--given-fault 0 --shard 1/2"));
    CHECK_THAT(edit_both([](Json& shard) { shard["given_fault"]["fault"] = "fault_generators/0 (a monthly freeze)"; }),
               Catch::Contains("it says given_fault is ") && Catch::Contains("a monthly freeze"));
    CHECK_THAT(edit_both([](Json& shard) { shard["vocabulary"]["item"] = "seller"; }),
               Catch::Contains("it says vocabulary is ") && Catch::Contains("\"seller\""));
    CHECK_THAT(edit_both([](Json& shard) { shard["scenario"] = "another"; }),
               Catch::Contains("it says scenario is \"another\", a rerun computes \"random-gc-pauses\""));
}

TEST_CASE("merge --verify needs shards with per-seed counts, and the locksim that swept") {
    const auto dir = fresh_directory("verify_needs");
    const auto whole = run_locksim(fmt::format(
        "sweep scenarios/random-gc-pauses.json --seeds 5 --format json --output '{}'", (dir / "whole.json").string()));
    REQUIRE(whole.exit_code == 0);
    const auto unsharded = run_locksim(fmt::format("merge --verify 1 '{}'", (dir / "whole.json").string()));
    CHECK(unsharded.exit_code == 2);
    CHECK(unsharded.err == fmt::format("merge --verify: {} keeps no per-seed counts (a whole sweep's summary, not a "
                                       "shard): nothing to compare a rerun with; verify the shards written by sweep "
                                       "--shard\n",
                                       (dir / "whole.json").string()));

    sweep_two_shards(dir, "scenarios/random-gc-pauses.json", 10);
    for (const char* name : {"s1.json", "s2.json"}) {
        Json shard = Json::parse(slurp(dir / name));
        shard["provenance"]["commit"] = "0123456789ab";
        write(dir / name, shard.dump(2));
    }
    const auto other_build = run_locksim(merge(dir, "--verify 1"));
    CHECK(other_build.exit_code == 2);
    CHECK_THAT(other_build.err, Catch::StartsWith("merge --verify: the shards were written by locksim 0.1.0 (commit "
                                                  "0123456789ab), this is locksim 0.1.0 (commit "));
    const auto zero = run_locksim(merge(dir, "--verify 0"));
    CHECK(zero.exit_code == 2);
    CHECK(zero.err ==
          "--verify: expected a whole number from 1 to 18446744073709551615, got \"0\"; run locksim merge --help for "
          "more information\n");
}

TEST_CASE("the seeds --verify reruns: failing ones first, then spread evenly over the others of the block") {
    locksim::SweepSummary shard;
    shard.covered = locksim::SeedBlock{1, 10};
    locksim::DesignTally design{"d", 10};
    design.keeps_seeds = true;
    design.seeds_counted = {locksim::SeedCounts{3, {1, 0, 1, 1, 0, 0, 0, 0}},
                            locksim::SeedCounts{4, {0, 0, 1, 0, 0, 1, 0, 0}},
                            locksim::SeedCounts{8, {1, 0, 1, 1, 0, 0, 0, 0}}};
    shard.designs = {design, design};
    using Seeds = std::vector<std::uint64_t>;
    CHECK(locksim::seeds_to_verify(shard, 1) == Seeds{3});
    CHECK(locksim::seeds_to_verify(shard, 2) == Seeds{3, 8});
    // The others, 1 2 4 5 6 7 9 10: the middles of 3 equal parts are their 2nd, 5th and 7th.
    CHECK(locksim::seeds_to_verify(shard, 5) == Seeds{3, 8, 2, 6, 9});
    CHECK(locksim::seeds_to_verify(shard, 10) == Seeds{3, 8, 1, 2, 4, 5, 6, 7, 9, 10});
    CHECK(locksim::seeds_to_verify(shard, 1000) == Seeds{3, 8, 1, 2, 4, 5, 6, 7, 9, 10});
}
