// Shard files read as strictly as a scenario: a key twice, a field the format lacks, a value
// of the wrong type, per-seed counts that are not rows of runs, totals that are not their
// sums, totals that wrap past 2^64 - 1 when merged, and shards that differ in a field
// that must agree are each refused in one line that says what is wrong and where.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <utility>
#include <vector>

#include "checks/sweep_merge.hpp"
#include "checks/sweep_summary.hpp"
#include "scenarios/schema/shard_reader.hpp"

using namespace locksim;

namespace {

const std::string sha_a(64, 'a');
const std::string sha_b(64, 'b');

// Shard i of 2 of seeds 1…100 of scenario "s", one design, as sweep --shard writes it: 50
// runs, of which `counted` counted something.
SweepSummary shard(std::uint32_t i, const std::vector<SeedCounts>& counted = {}) {
    SweepSummary part;
    part.scenario = "s";
    part.file = "s.json";
    part.seeds = SeedBlock{1, 100};
    part.shard = i;
    part.shards = 2;
    part.covered = shard_block(part.seeds, i, 2);
    DesignTally design{"unfenced", part.covered.count - counted.size()};
    design.keeps_seeds = true;
    for (const auto& run : counted) design.add(run);
    part.designs.push_back(design);
    part.provenance = SweepProvenance{sha_a, "0.1.0", "abc", sweep_command_line(part, i)};
    return part;
}

std::string shard_text(const SweepSummary& part) {
    return sweep_json(part).dump(2);
}

// `text` with its first `from` replaced by `to`.
std::string edited(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// Why merge refuses these files (name, text), or "merged".
std::string merge_refusal(const std::vector<std::pair<std::string, std::string>>& files) {
    try {
        ShardFiles read;
        for (const auto& [name, text] : files) add_shard_file(read, name, text);
        merge_shards(read, MergeMode::whole);
    } catch (const SweepError& error) {
        return error.what();
    }
    return "merged";
}

std::string merge_refusal(const std::string& first, const std::string& second) {
    return merge_refusal({{"shard-1.json", first}, {"shard-2.json", second}});
}

// One overlap at each of `seeds` (a count that is no violation).
std::vector<SeedCounts> overlaps_at(const std::vector<std::uint64_t>& seeds, std::uint64_t each = 1) {
    std::vector<SeedCounts> runs;
    for (auto seed : seeds) runs.push_back(SeedCounts{seed, {0, 0, 0, 0, 0, each, 0, 0, 0, 0, 0}});
    return runs;
}

}  // namespace

TEST_CASE("a shard as sweep --shard writes it merges, and keeps its per-seed counts as rows") {
    const SweepSummary first =
        shard(1, {SeedCounts{3, {1, 0, 0, 1, 0, 2, 0, 0, 0, 0, 0}}, SeedCounts{17, {0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}}});
    CHECK_THAT(shard_text(first),
               Catch::Contains("\"per_seed\": \"2:1,0,0,1,0,2,0,0,0,0,0 16:0,0,0,0,0,1,0,0,0,0,0\""));
    CHECK(merge_refusal(shard_text(first), shard_text(shard(2))) == "merged");
}

TEST_CASE("a shard keeps the forms its scenario wrote, so the merged sweep spells them as the file does") {
    SweepSummary first = shard(1);
    SweepSummary second = shard(2);
    for (SweepSummary* part : {&first, &second}) {
        part->words.item = "batch";
        part->words.effect = "transfer";
        part->words.effected_written = "transferred";
    }
    CHECK_THAT(shard_text(first), Catch::Contains("\"effected\": \"transferred\""));
    ShardFiles read;
    add_shard_file(read, "shard-1.json", shard_text(first));
    add_shard_file(read, "shard-2.json", shard_text(second));
    const SweepSummary merged = merge_shards(read, MergeMode::whole);
    CHECK(merged.words.effected() == "transferred");
    CHECK(merged.words.items() == "batches");
    CHECK(merged.words.table_written.empty());  // not written, not invented
}

TEST_CASE("a key twice in a shard is refused where the second stands, as a scenario's is") {
    const std::string text = edited(shard_text(shard(1)), "\"runs\": 50,", "\"runs\": 50,\n      \"runs\": 0,");
    CHECK_THAT(merge_refusal(text, shard_text(shard(2))),
               Catch::Matches("shard-1\\.json:[0-9]+:7: /designs/0/runs: this field appears twice in the same object"));
    const std::string top =
        edited(shard_text(shard(2)), "\"scenario\": \"s\",", "\"scenario\": \"s\", \"scenario\": \"t\",");
    CHECK(merge_refusal(shard_text(shard(1)), top) ==
          "shard-2.json:2:20: /scenario: this field appears twice in the same object");
}

TEST_CASE("a field a shard does not have, or one it lacks, is refused") {
    CHECK_THAT(
        merge_refusal(edited(shard_text(shard(1)), "\"covered\"", "\"extra\": 1, \"covered\""), shard_text(shard(2))),
        Catch::Matches(
            "shard-1\\.json:[0-9]+:[0-9]+: /extra: unknown field \"extra\"; expected one of: "
            "scenario, file, seeds, shard, covered, settings, given_fault, provenance, vocabulary, designs"));
    CHECK_THAT(merge_refusal(edited(shard_text(shard(1)), "\"failing_seeds\"", "\"failing\": [], \"failing_seeds\""),
                             shard_text(shard(2))),
               Catch::Contains(": /designs/0/failing: unknown field \"failing\""));
    CHECK_THAT(
        merge_refusal(edited(shard_text(shard(1)), "\"per_seed\": \"\"", "\"kept\": \"\""), shard_text(shard(2))),
        Catch::Contains(": /designs/0/kept: unknown field"));
    auto without_settings = sweep_json(shard(1));
    without_settings.erase("settings");
    CHECK_THAT(merge_refusal(without_settings.dump(), shard_text(shard(2))),
               Catch::Matches("shard-1\\.json:1:1: /: missing required field \"settings\""));
}

TEST_CASE("a value of the wrong type in a shard is refused, naming what was expected") {
    CHECK_THAT(merge_refusal(edited(shard_text(shard(1)), "\"runs\": 50", "\"runs\": \"50\""), shard_text(shard(2))),
               Catch::Contains(": /designs/0/runs: expected a whole number, got the string \"50\""));
    CHECK_THAT(merge_refusal(edited(shard_text(shard(1)), "\"runs\": 50", "\"runs\": -50"), shard_text(shard(2))),
               Catch::Contains(": /designs/0/runs: expected a number 0 or above, got -50"));
    CHECK_THAT(merge_refusal(edited(shard_text(shard(1)), "\"runs\": 50", "\"runs\": 5e1"), shard_text(shard(2))),
               Catch::Contains(": /designs/0/runs: expected a whole number, got the number 50.0"));
    CHECK_THAT(
        merge_refusal(edited(shard_text(shard(1)), "\"per_seed\": \"\"", "\"per_seed\": []"), shard_text(shard(2))),
        Catch::Contains(": /designs/0/per_seed: expected a string, got an array"));
    CHECK_THAT(merge_refusal(edited(shard_text(shard(1)), sha_a, "abc"), shard_text(shard(2))),
               Catch::Contains(": /provenance/scenario_sha256: expected a SHA-256: 64 hexadecimal digits"));
    CHECK_THAT(merge_refusal(edited(shard_text(shard(1)), "\"design\": null", "\"design\": 3"), shard_text(shard(2))),
               Catch::Contains(": /settings/design: expected a string, got the number 3"));
    CHECK_THAT(merge_refusal(edited(shard_text(shard(1)), "\"effect\": \"charge\"", "\"effect\": \"\\u001b[2J\""),
                             shard_text(shard(2))),
               Catch::Contains(": /vocabulary/effect: expected text without control characters"));
    CHECK_THAT(merge_refusal(edited(shard_text(shard(1)), "\"violation_rate\": 0.0", "\"violation_rate\": 0.5"),
                             shard_text(shard(2))),
               Catch::Contains(": /designs/0/violation_rate: expected 0, what its 0 runs with a violation of 50 give"));
}

TEST_CASE("per-seed counts that are not rows of runs of the shard's block are refused") {
    const std::string text = shard_text(shard(1, overlaps_at({5})));
    const auto with_rows = [&](const std::string& rows) {
        return merge_refusal(
            edited(text, "\"per_seed\": \"4:0,0,0,0,0,1,0,0,0,0,0\"", "\"per_seed\": \"" + rows + "\""),
            shard_text(shard(2)));
    };
    const std::string expected =
        "; expected rows \"SEED-OFFSET:runs_with_violation,runs_unfinished,runs_fault_reached,double_charges,"
        "suppressed_effects,overlapping_holders,stale_writes_accepted,foreign_releases,items_not_done,unfinished_work,"
        "locks_leaked\" of whole numbers, rising, "
        "apart by one space";
    CHECK_THAT(
        with_rows("4:0,0,0,0,0,1,0,0,0,0"),
        Catch::Contains(": /designs/0/per_seed: row 1 (\"4:0,0,0,0,0,1,0,0,0,0\"): 10 counts, not 11" + expected));
    CHECK_THAT(with_rows("4:0,0,0,0,0,1,0,0,0,0,0,0"),
               Catch::Contains("row 1 (\"4:0,0,0,0,0,1,0,0,0,0,0,0\"): more than 11 counts"));
    CHECK_THAT(with_rows("4:0,0,0,0,0,1,0,0,0,0,0,"),
               Catch::Contains("row 1 (\"4:0,0,0,0,0,1,0,0,0,0,0,\"): more than 11 counts"));
    CHECK_THAT(with_rows("-4:0,0,0,0,0,1,0,0,0,0,0"),
               Catch::Contains("row 1 (\"-4:0,0,0,0,0,1,0,0,0,0,0\"): no offset from the first seed"));
    CHECK_THAT(with_rows("4:0,0,0,0,0,-1,0,0,0,0,0"), Catch::Contains("count 6 is not a whole number of 64 bits"));
    CHECK_THAT(with_rows("4:0,0,0,0,0,0,0,0,0,0,0"), Catch::Contains("a run that counted nothing has no row"));
    CHECK_THAT(with_rows("4:0,0,0,0,0,1,0,0,0,0,0  9:0,0,0,0,0,1,0,0,0,0,0"),
               Catch::Contains("row 2 (\"\"): no offset"));
    CHECK_THAT(with_rows("9:0,0,0,0,0,1,0,0,0,0,0 4:0,0,0,0,0,1,0,0,0,0,0"),
               Catch::Contains("row 2 (\"4:0,0,0,0,0,1,0,0,0,0,0\"): its seed is not above"));
    CHECK_THAT(with_rows("4:0,0,0,0,0,1,0,0,0,0,0 "), Catch::Contains("a space after the last row"));
    // Inside the shard's block of 50 seeds from 1.
    CHECK_THAT(with_rows("50:0,0,0,0,0,1,0,0,0,0,0"),
               Catch::Contains("shard-1.json: shard 1/2: design unfenced has per-seed counts for seed 51, outside its "
                               "block; its totals cannot be trusted: rerun it with locksim sweep s.json --seeds 100 "
                               "--start 1 --shard 1/2"));
    CHECK_THAT(with_rows("4:2,0,0,0,0,1,0,0,0,0,0"), Catch::Contains("counts seed 5 as 2 runs with a violation"));
    CHECK_THAT(with_rows("18446744073709551615:0,0,0,0,0,1,0,0,0,0,0"), Catch::Contains("the seed passes 2^64 - 1"));
}

TEST_CASE("a total edited alone, or with its kept seeds, no longer adds up to the shard's per-seed counts") {
    // Three violating runs hand-edited to none: the rows still show them.
    std::vector<SeedCounts> three{SeedCounts{2, {1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}},
                                  SeedCounts{9, {1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}},
                                  SeedCounts{30, {1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0}}};
    auto document = sweep_json(shard(1, three));
    auto& design = document["designs"][0];
    design["runs_with_violation"] = 0;
    design["double_charges"] = 0;
    design["failing_seeds"] = nlohmann::ordered_json::array();
    design["violation_rate"] = 0.0;
    design["wilson_95"] = {0.0, wilson_interval(0, 50).high};
    CHECK(merge_refusal(document.dump(), shard_text(shard(2))) ==
          "shard-1.json: shard 1/2: design unfenced's runs_with_violation is 0, but its per-seed counts add up to 3; "
          "its totals cannot be trusted: rerun it with locksim sweep s.json --seeds 100 --start 1 --shard 1/2");
    auto overlaps = sweep_json(shard(1, overlaps_at({4, 5})));
    overlaps["designs"][0]["overlapping_holders"] = 5;
    CHECK_THAT(merge_refusal(overlaps.dump(), shard_text(shard(2))),
               Catch::Contains("design unfenced's overlapping_holders is 5, but its per-seed counts add up to 2"));
    auto seeds = sweep_json(shard(1, three));
    seeds["designs"][0]["failing_seeds"] = {2, 9, 31};
    CHECK_THAT(merge_refusal(seeds.dump(), shard_text(shard(2))),
               Catch::Contains("design unfenced lists failing or unfinished seeds other than its per-seed counts'"));
}

TEST_CASE("a shard of several without per-seed counts is refused, and a whole sweep's summary needs none") {
    auto document = sweep_json(shard(1));
    document["designs"][0].erase("per_seed");
    CHECK_THAT(
        merge_refusal(document.dump(), shard_text(shard(2))),
        Catch::Contains("shard-1.json:1:") && Catch::Contains(": /designs/0: missing required field \"per_seed\""));
    SweepSummary whole = shard(1);
    whole.shards = 1;
    whole.covered = whole.seeds;
    whole.designs[0] = DesignTally{"unfenced", 100};
    whole.provenance.command = sweep_command_line(whole, 1);
    CHECK(merge_refusal({{"whole.json", shard_text(whole)}}) == "merged");
}

TEST_CASE("totals that pass 2^64 - 1 over the shards are refused, blaming the shard with the most") {
    // 2^64 - 1 + 7 once merged to 6, and the error named the shard added last.
    const std::string huge = shard_text(shard(1, overlaps_at({1}, UINT64_MAX)));
    const std::string seven = shard_text(shard(2, overlaps_at({51, 52, 53, 54, 55, 56, 57})));
    const std::string blamed =
        "merge: shard-1.json: design unfenced's overlapping_holders add up past 2^64 - 1 over the shards; shard 1/2, "
        "the one with the most, counts 18446744073709551615 in 50 runs: rerun it: locksim sweep s.json --seeds 100 "
        "--start 1 --shard 1/2";
    CHECK(merge_refusal(huge, seven) == blamed);
    CHECK(merge_refusal({{"shard-2.json", seven}, {"shard-1.json", huge}}) == blamed);
    // Within one shard, its own rows.
    const std::string rows =
        edited(huge, "\"per_seed\": \"0:0,0,0,0,0,18446744073709551615,0,0,0,0,0\"",
               "\"per_seed\": \"0:0,0,0,0,0,18446744073709551615,0,0,0,0,0 1:0,0,0,0,0,1,0,0,0,0,0\"");
    CHECK_THAT(merge_refusal(rows, seven),
               Catch::Contains("design unfenced's overlapping_holders pass 2^64 - 1 when added up (its per-seed "
                               "counts)"));
}

TEST_CASE("shards that differ in a field that must agree do not merge, naming it") {
    SweepSummary other = shard(2);
    other.scenario = "t";
    CHECK(merge_refusal(shard_text(shard(1)), shard_text(other)) ==
          "merge: shard-2.json is not a shard of the same sweep as shard-1.json: scenario is \"t\", not \"s\"; rerun "
          "every shard with one scenario file and one locksim");
    SweepSummary words = shard(2);
    words.words.effect = "email";
    CHECK_THAT(
        merge_refusal(shard_text(shard(1)), shard_text(words)),
        Catch::Contains("vocabulary is {\"item\":\"customer\",\"effect\":\"email\",\"provider\":\"payment "
                        "provider\",\"record\":\"invoice\"}, not {\"item\":\"customer\",\"effect\":\"charge\","));
    // A form the scenario wrote is part of its words: shards that spell it otherwise do not merge.
    SweepSummary spelt = shard(2);
    spelt.words.effected_written = "chargd";
    CHECK_THAT(merge_refusal(shard_text(shard(1)), shard_text(spelt)), Catch::Contains("\"effected\":\"chargd\"}"));
    SweepSummary limit = shard(2);
    limit.settings.event_limit = 1000;
    limit.provenance.command = sweep_command_line(limit, 2);
    CHECK_THAT(merge_refusal(shard_text(shard(1)), shard_text(limit)),
               Catch::Contains("settings.max_events is 1000, not 50000000"));
    // A shard that ran one design when the others ran every design.
    SweepSummary one = shard(2);
    one.settings.design = "unfenced";
    one.provenance.command = sweep_command_line(one, 2);
    CHECK_THAT(merge_refusal(shard_text(shard(1)), shard_text(one)),
               Catch::Contains("settings.design is \"unfenced\", not every design"));
    // A command that is not the one its fields give was edited.
    SweepSummary command = shard(2);
    command.provenance.command += " --max-events 5";
    CHECK_THAT(merge_refusal(shard_text(shard(1)), shard_text(command)),
               Catch::Contains("provenance.command is locksim sweep s.json --seeds 100 --start 1 --shard 2/2 "
                               "--max-events 5, not the command of its file, seeds and settings"));
}

TEST_CASE("a changed file of samples is named as such, not as an edited scenario") {
    SweepSummary first = shard(1), second = shard(2);
    first.provenance.data_files = {{"pauses.txt", sha_a}, {"other.txt", sha_a}};
    second.provenance.data_files = {{"pauses.txt", sha_b}, {"other.txt", sha_a}};
    second.provenance.scenario_sha256 = sha_b;
    CHECK(
        merge_refusal(shard_text(first), shard_text(second)) ==
        fmt::format("merge: shard-2.json is not a shard of the same sweep as shard-1.json: provenance.scenario_sha256 "
                    "is {1}, not {0} (the file of samples pauses.txt changed between the shards (its SHA-256 is {0} "
                    "in shard-1.json, {1} in shard-2.json)); rerun every shard with one scenario file and one locksim",
                    sha_a, sha_b));
}

TEST_CASE("the command to rerun a missing or cut shard keeps the design and the event limit") {
    SweepSummary first = shard(1), second = shard(2);
    for (auto* part : {&first, &second}) {
        part->settings = SweepSettings{"unfenced", 1000};
        part->provenance.command = sweep_command_line(*part, part->shard);
    }
    const std::string cut = shard_text(second).substr(0, 200);
    CHECK_THAT(merge_refusal({{"shard-1.json", shard_text(first)}, {"shard-2.json", cut}}),
               Catch::Contains("rerun it: locksim sweep s.json --seeds 100 --start 1 --design unfenced --max-events "
                               "1000 --shard 2/2"));
}
