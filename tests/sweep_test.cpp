// Sweeps: the same totals whatever the thread count, shards that merge into the whole,
// and the Wilson interval.
#include <catch2/catch.hpp>

#include "tests/support.hpp"

#include "checks/metrics.hpp"
#include "checks/sweep_merge.hpp"
#include "checks/sweep_summary.hpp"
#include "reports/sweep_text.hpp"
#include "runners/sweep_runner.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "scenarios/schema/shard_reader.hpp"

using namespace locksim;

namespace {

Scenario random_gc_pauses() {
    return load_scenario_file(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/random-gc-pauses.json", metric_names());
}

void no_progress(std::uint64_t) {}

// Every design ran every seed of the block exactly once, and the totals are those of one
// thread, byte for byte.
void check_against_one_thread(const Scenario& scenario, SeedBlock seeds, const std::vector<unsigned>& thread_counts) {
    const std::string one = sweep_json(run_sweep(scenario, seeds, 1, no_progress)).dump();
    for (unsigned threads : thread_counts) {
        INFO(seeds.count << " seeds on " << threads << " threads");
        const SweepSummary summary = run_sweep(scenario, seeds, threads, no_progress);
        for (const auto& design : summary.designs) CHECK(design.runs == seeds.count);
        CHECK(sweep_json(summary).dump() == one);
    }
}

// Shard i of n of `seeds` as `sweep --shard i/n` writes it, read back as merge reads it.
SweepSummary shard_of(const Scenario& scenario, SeedBlock seeds, std::uint32_t i, std::uint32_t n, unsigned threads) {
    SweepSummary part = run_sweep(scenario, shard_block(seeds, i, n), threads, no_progress, {}, true);
    part.seeds = seeds;
    part.shard = i;
    part.shards = n;
    part.provenance = SweepProvenance{scenario.content_sha256, "0.1.0", "abc", sweep_command_line(part, i)};
    return part;
}

const std::string sha_a(64, 'a');
const std::string sha_b(64, 'b');

// A design's tally as a shard keeps it: `runs` runs that counted nothing.
DesignTally kept(const std::string& name, std::uint64_t runs) {
    DesignTally tally{name, runs};
    tally.keeps_seeds = true;
    return tally;
}

// The shard's first design counted `run` at one of its runs that counted nothing before.
void count_run(SweepSummary& part, const SeedCounts& run) {
    --part.designs[0].runs;
    part.designs[0].add(run);
}

// After the shard's file or settings changed: the command that its fields give.
SweepSummary with_own_command(SweepSummary part) {
    part.provenance.command = sweep_command_line(part, part.shard);
    return part;
}

ShardFiles shard_files(const std::vector<SweepSummary>& parts) {
    ShardFiles files;
    for (const auto& part : parts)
        add_shard_file(files, fmt::format("shard-{}.json", part.shard), sweep_json(part).dump(2));
    return files;
}

// A hand-made shard whose totals add up: `runs` per design over shard i of n of 1…100.
SweepSummary made_shard(std::uint32_t i, std::uint32_t n) {
    SweepSummary part;
    part.scenario = "s";
    part.file = "s.json";
    part.seeds = SeedBlock{1, 100};
    part.shards = n;
    part.shard = i;
    part.covered = shard_block(part.seeds, i, n);
    part.provenance = SweepProvenance{sha_a, "0.1.0", "abc", sweep_command_line(part, i)};
    part.designs.push_back(kept("unfenced", part.covered.count));
    return part;
}

std::string merge_error(const std::vector<SweepSummary>& parts) {
    try {
        merge_shards(shard_files(parts), MergeMode::whole);
    } catch (const SweepError& error) {
        return error.what();
    }
    return "merged";
}

}  // namespace

TEST_CASE("the Wilson interval matches known values") {
    // 10 of 100: 95% Wilson interval 5.52%..17.44% (Newcombe 1998, and any statistics package).
    const auto tenth = wilson_interval(10, 100);
    CHECK(tenth.low == Approx(0.0552).margin(0.0001));
    CHECK(tenth.high == Approx(0.1744).margin(0.0001));
    // None of 50: from 0 to 7.13%.
    const auto none = wilson_interval(0, 50);
    CHECK(none.low == 0);
    CHECK(none.high == Approx(0.0713).margin(0.0001));
    // All of 20: from 83.89% to 100%.
    const auto all = wilson_interval(20, 20);
    CHECK(all.low == Approx(0.8389).margin(0.0001));
    CHECK(all.high == 1);
}

TEST_CASE("a sweep counts every seed once whatever the thread count, at the smallest sizes") {
    const Scenario scenario = random_gc_pauses();
    // More threads than seeds, down to one seed on 64 threads.
    for (std::uint64_t seeds : {1, 2, 3, 7, 64})
        check_against_one_thread(scenario, SeedBlock{1, seeds}, {1, 2, 3, 8, 16, 64});
}

TEST_CASE("a sweep of 1000 seeds has the one-thread totals on 2, 3, 8, 16 and 64 threads") {
    check_against_one_thread(random_gc_pauses(), SeedBlock{1, 1000}, {2, 3, 8, 16, 64});
}

TEST_CASE("a sweep far from seed 1 has the one-thread totals") {
    check_against_one_thread(random_gc_pauses(), SeedBlock{UINT64_MAX - 6, 7}, {3, 16});
}

TEST_CASE("shards of a sweep merge into exactly the unsharded totals") {
    const Scenario scenario = random_gc_pauses();
    const SeedBlock seeds{1, 601};  // not a multiple of the shard count
    const SweepSummary whole = run_sweep(scenario, seeds, 2, no_progress);
    std::vector<SweepSummary> parts;
    for (std::uint32_t i = 1; i <= 3; ++i) parts.push_back(shard_of(scenario, seeds, i, 3, 16));
    SweepSummary merged = merge_shards(shard_files(parts), MergeMode::whole);
    CHECK(merged.provenance.command == sweep_command_line(scenario.file, seeds, {}, 1, 1));
    merged.provenance = {};
    CHECK(sweep_json(merged).dump() == sweep_json(whole).dump());
}

TEST_CASE("shards of one seed each, on more threads than seeds, merge into the unsharded totals") {
    const Scenario scenario = random_gc_pauses();
    for (std::uint64_t count : {1, 2, 7}) {
        const SeedBlock seeds{10, count};
        std::vector<SweepSummary> parts;
        for (std::uint32_t i = 1; i <= count; ++i)
            parts.push_back(shard_of(scenario, seeds, i, static_cast<std::uint32_t>(count), 16));
        SweepSummary merged = merge_shards(shard_files(parts), MergeMode::whole);
        for (const auto& design : merged.designs) CHECK(design.runs == count);
        merged.provenance = {};
        CHECK(sweep_json(merged).dump() == sweep_json(run_sweep(scenario, seeds, 1, no_progress)).dump());
    }
}

TEST_CASE("merge refuses a shard given twice, a missing shard, and shards of another sweep") {
    const SweepSummary part = made_shard(1, 2);
    const SweepSummary other = made_shard(2, 2);
    CHECK_THAT(merge_error({part, part}), Catch::Contains("shard 1/2 is given twice"));
    CHECK_THAT(merge_error({part}), Catch::Contains("shard 2/2 is missing"));
    SweepSummary longer = other;
    longer.seeds.count = 200;
    longer.covered = shard_block(longer.seeds, 2, 2);
    for (auto& design : longer.designs) design.runs = longer.covered.count;
    CHECK_THAT(merge_error({part, with_own_command(longer)}),
               Catch::Contains("shard-2.json is not a shard of the same sweep"));
    CHECK(merge_error({other, part}) == "merged");
}

TEST_CASE("merge refuses a shard of an edited scenario, naming the field that differs") {
    SweepSummary edited = made_shard(2, 2);
    edited.provenance.scenario_sha256 = sha_b;
    const std::string error = merge_error({made_shard(1, 2), edited});
    CHECK_THAT(error, Catch::Contains("shard-2.json"));
    CHECK_THAT(error, Catch::Contains(fmt::format("provenance.scenario_sha256 is {}, not {}", sha_b, sha_a)));
    CHECK_THAT(error, Catch::Contains("(the scenario file's bytes differ: it was edited between the shards)"));
}

TEST_CASE("merge refuses shards built by another locksim") {
    SweepSummary newer = made_shard(2, 2);
    newer.provenance.locksim_version = "0.2.0";
    CHECK_THAT(merge_error({made_shard(1, 2), newer}),
               Catch::Contains("provenance.locksim_version is 0.2.0, not 0.1.0"));
    SweepSummary rebuilt = made_shard(2, 2);
    rebuilt.provenance.commit = "def";
    CHECK_THAT(merge_error({made_shard(1, 2), rebuilt}), Catch::Contains("provenance.commit is def, not abc"));
}

TEST_CASE("the same scenario under another path merges") {
    SweepSummary moved = made_shard(2, 2);
    moved.file = "elsewhere/s.json";
    CHECK(merge_error({made_shard(1, 2), with_own_command(moved)}) == "merged");
}

TEST_CASE("merge refuses a shard whose totals do not add up, naming the file") {
    SweepSummary counted_twice = made_shard(2, 2);
    counted_twice.designs[0].runs = 32768;
    CHECK_THAT(merge_error({made_shard(1, 2), counted_twice}),
               Catch::Contains("shard-2.json: shard 2/2: design unfenced has 32768 runs for 50 seeds"));

    SweepSummary too_many = made_shard(2, 2);
    too_many.designs[0].runs_with_violation = 51;
    too_many.designs[0].failing_seeds = {51, 52, 53, 54, 55, 56, 57, 58, 59, 60};
    CHECK_THAT(merge_error({made_shard(1, 2), too_many}), Catch::Contains("51 runs with a violation out of 50"));

    SweepSummary foreign_seed = made_shard(2, 2);
    foreign_seed.designs[0].runs_with_violation = 1;
    foreign_seed.designs[0].metric_total(Metric::double_charges) = 1;
    foreign_seed.designs[0].failing_seeds = {3};  // shard 2/2 of 1…100 is 51…100
    CHECK_THAT(merge_error({made_shard(1, 2), foreign_seed}), Catch::Contains("failing seeds"));

    SweepSummary charges_without_violation = made_shard(2, 2);
    charges_without_violation.designs[0].metric_total(Metric::double_charges) = 2;
    CHECK_THAT(merge_error({made_shard(1, 2), charges_without_violation}), Catch::Contains("no run with a violation"));

    SweepSummary wrong_block = made_shard(2, 2);
    wrong_block.covered.first = 52;
    CHECK_THAT(merge_error({made_shard(1, 2), wrong_block}), Catch::Contains("covers seeds 52"));
}

TEST_CASE("a shard file cut short is incomplete, with its index when the text still has it") {
    const std::string text = sweep_json(made_shard(2, 4)).dump(2);
    ShardFiles files;
    add_shard_file(files, "shard-1.json", sweep_json(made_shard(1, 4)).dump(2));
    add_shard_file(files, "empty.json", "");
    add_shard_file(files, "cut.json", text.substr(0, text.size() / 2));
    REQUIRE(files.incomplete.size() == 2);
    CHECK_FALSE(files.incomplete[0].index);
    CHECK(files.incomplete[1].index == 2u);
    CHECK(files.incomplete[1].count == 4u);
    CHECK_THROWS_WITH(merge_shards(files, MergeMode::whole),
                      Catch::Contains("empty.json is an incomplete shard (0 bytes"));
    CHECK(index_ranges(missing_shards(files)) == "2-4");
    ShardFiles only_cut;
    add_shard_file(only_cut, "shard-1.json", sweep_json(made_shard(1, 2)).dump(2));
    add_shard_file(only_cut, "cut.json", sweep_json(made_shard(2, 2)).dump(2).substr(0, 200));
    CHECK_THROWS_WITH(merge_shards(only_cut, MergeMode::whole),
                      Catch::Contains("cut.json: shard 2/2 is incomplete") &&
                          Catch::Contains("rerun it: locksim sweep s.json --seeds 100 --start 1 --shard 2/2"));
}

TEST_CASE("a shard whose numbers are not whole numbers of their size is refused, never cast") {
    const std::string good = sweep_json(made_shard(1, 2)).dump();
    const auto with = [&](const std::string& from, const std::string& to) {
        std::string text = good;
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        return text.replace(at, from.size(), to);
    };
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"\"runs\":50", "\"runs\":50.9"},
                                                          {"\"runs\":50", "\"runs\":-50"},
                                                          {"\"double_charges\":0", "\"double_charges\":1e400"},
                                                          {"\"first\":1", "\"first\":1e30"},
                                                          {"\"index\":1", "\"index\":4294967297"},
                                                          {"\"of\":2", "\"of\":\"2\""},
                                                          {"\"failing_seeds\":[]", "\"failing_seeds\":[-3]"}}) {
        INFO(to);
        ShardFiles files;
        CHECK_THROWS_AS(add_shard_file(files, "shard-1.json", with(from, to)), SweepError);
    }
}

TEST_CASE("a whole shard with bytes after it is not taken for a killed one") {
    const std::string text = sweep_json(made_shard(1, 2)).dump(2);
    for (const std::string tail : {"x", "}", "\n{}"}) {
        ShardFiles files;
        CHECK_THROWS_WITH(add_shard_file(files, "shard-1.json", text + tail), Catch::Contains("not valid JSON"));
    }
}

TEST_CASE("design lists that read alike when joined with commas are still different sweeps") {
    SweepSummary one = made_shard(1, 2);
    one.designs = {kept("check-twice, sigstop", 50), kept("idempotent", 50)};
    SweepSummary two = made_shard(2, 2);
    two.designs = {kept("check-twice", 50), kept("sigstop", 50), kept("idempotent", 50)};
    CHECK_THAT(merge_error({one, two}), Catch::Contains("designs is"));
}

TEST_CASE("a design listed twice in a shard is refused") {
    SweepSummary twice = made_shard(1, 1);
    twice.designs.push_back(twice.designs[0]);
    CHECK_THAT(merge_error({twice}), Catch::Contains("design unfenced is listed twice"));
}

TEST_CASE("an incomplete copy of a shard that is also given whole is named as such") {
    ShardFiles files;
    const std::string second = sweep_json(made_shard(2, 2)).dump(2);
    add_shard_file(files, "shard-1.json", sweep_json(made_shard(1, 2)).dump(2));
    add_shard_file(files, "shard-2.json", second);
    add_shard_file(files, "shard-2.json.old", second.substr(0, 150));
    CHECK_THROWS_WITH(
        merge_shards(files, MergeMode::whole),
        Catch::Contains("shard-2.json.old is an incomplete copy of shard 2/2, which shard-2.json holds whole"));
    ShardFiles stray;
    add_shard_file(stray, "shard-1.json", sweep_json(made_shard(1, 1)).dump(2));
    add_shard_file(stray, "empty.json", "");
    CHECK_THROWS_WITH(merge_shards(stray, MergeMode::whole), Catch::Contains("every shard is present elsewhere"));
}

TEST_CASE("the command of a merged sweep keeps what the shards ran with besides the shard") {
    std::vector<SweepSummary> parts{made_shard(1, 2), made_shard(2, 2)};
    for (auto& part : parts) {
        part.settings = SweepSettings{"unfenced", 1000};
        part = with_own_command(part);
    }
    const SweepSummary merged = merge_shards(shard_files(parts), MergeMode::whole);
    CHECK(merged.provenance.command ==
          "locksim sweep s.json --seeds 100 --start 1 --design unfenced --max-events 1000");
}

TEST_CASE("shard blocks partition even a sweep whose seed count times the shard count passes 2^64") {
    const SeedBlock seeds{0, UINT64_MAX};
    constexpr std::uint32_t shards = 100000;
    CHECK(shard_block(seeds, 1, shards).first == 0);
    for (std::uint32_t i = 1; i < shards; i += 33333) {
        const SeedBlock block = shard_block(seeds, i, shards);
        CHECK(block.count / (UINT64_MAX / shards) == 1);  // equal blocks, to within one seed
        CHECK(shard_block(seeds, i + 1, shards).first == block.first + block.count);
    }
    const SeedBlock last = shard_block(seeds, shards, shards);
    CHECK(last.first + last.count == UINT64_MAX);
}

TEST_CASE("a file that is not JSON at all is not taken for a killed shard") {
    ShardFiles files;
    CHECK_THROWS_WITH(add_shard_file(files, "notes.txt", "seed 1 failed\n{}"), Catch::Contains("not valid JSON"));
    CHECK_THROWS_WITH(add_shard_file(files, "other.json", "{\"name\": 1}"),
                      Catch::Contains("other.json:1:1: /: not a locksim shard"));
}

TEST_CASE("the missing shards are listed as sbatch --array takes them") {
    CHECK(index_ranges({}) == "");
    CHECK(index_ranges({3}) == "3");
    CHECK(index_ranges({2, 5, 6, 7}) == "2,5-7");
    CHECK(index_ranges({1, 2, 4, 6, 7}) == "1-2,4,6-7");
    ShardFiles files;
    for (std::uint32_t i : {1, 3, 4, 8})
        add_shard_file(files, fmt::format("shard-{}.json", i), sweep_json(made_shard(i, 8)).dump());
    CHECK(index_ranges(missing_shards(files)) == "2,5-7");
}

TEST_CASE("a partial merge totals the shards present and says which they are") {
    ShardFiles files;
    for (std::uint32_t i : {1, 3})
        add_shard_file(files, fmt::format("shard-{}.json", i), sweep_json(made_shard(i, 4)).dump());
    const SweepSummary partial = merge_shards(files, MergeMode::partial);
    CHECK(partial.partial_shards == std::vector<std::uint32_t>{1, 3});
    CHECK(partial.designs[0].runs == 50);
    const auto json = sweep_json(partial);
    CHECK(json.at("partial").at("seeds_covered") == 50);
    CHECK_FALSE(json.contains("covered"));
    CHECK_THAT(render_sweep_text(partial, "locksim", false),
               Catch::Contains("PARTIAL: shards 1,3 of 4 (50 of 100 seeds); still missing: 2,4"));
    // A partial merge is not a shard: merging it again is refused.
    ShardFiles again;
    CHECK_THROWS_WITH(add_shard_file(again, "partial.json", json.dump()), Catch::Contains("partial merge"));
}

TEST_CASE("shard blocks partition the seeds without gaps or overlaps") {
    const SeedBlock seeds{5, 1003};
    std::uint64_t next = seeds.first;
    for (std::uint32_t i = 1; i <= 7; ++i) {
        const SeedBlock block = shard_block(seeds, i, 7);
        CHECK(block.first == next);
        next = block.first + block.count;
    }
    CHECK(next == seeds.first + seeds.count);
}

TEST_CASE("a tally keeps the smallest failing seeds, whatever order they arrive in") {
    RunMetrics failing;
    failing.flagged.push_back(FlaggedEvent{0, Metric::double_charges, "customer 42 charged a second time"});
    const std::uint32_t violations = violation_flag(Metric::double_charges);
    DesignTally a{"d"}, b{"d"};
    for (std::uint64_t seed : {50, 3, 40, 7, 2, 90, 13, 8, 1, 60, 11, 5}) a.add(seed, failing, violations, false);
    for (std::uint64_t seed : {4, 6}) b.add(seed, failing, violations, false);
    a.merge(b);
    CHECK(a.failing_seeds == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 11, 13});
    CHECK(a.runs_with_violation == 14);
    CHECK(a.runs_unfinished == 0);
    CHECK(a.unfinished_seeds.empty());
}

TEST_CASE("a tally counts unfinished runs apart from violations, and merging adds them up") {
    const RunMetrics clean;
    DesignTally a{"d"}, b{"d"};
    for (std::uint64_t seed : {9, 4, 7}) a.add(seed, clean, 0, true);
    a.add(5, clean, 0, false);
    for (std::uint64_t seed : {2, 8}) b.add(seed, clean, 0, true);
    a.merge(b);
    CHECK(a.runs == 6);
    CHECK(a.runs_unfinished == 5);
    CHECK(a.runs_with_violation == 0);
    CHECK(a.unfinished_seeds == std::vector<std::uint64_t>{2, 4, 7, 8, 9});
    CHECK(a.total("runs_unfinished") == 5);
    CHECK(describe_unfinished(a, "locksim", "s.json") ==
          "5 of 6 runs were cut by their horizon with work pending (runs_unfinished): what they would have done "
          "after it is not counted; replay the first: locksim run s.json --seed 2 --design d");
    CHECK(describe_unfinished(DesignTally{"d"}, "locksim", "s.json").empty());
}

TEST_CASE("merge adds up the shards' unfinished runs and keeps the smallest of their seeds") {
    SweepSummary first = made_shard(1, 2), second = made_shard(2, 2);
    const auto unfinished = [](std::uint64_t seed) { return SeedCounts{seed, {0, 1, 0, 0, 0, 0}}; };
    count_run(first, unfinished(30));
    count_run(first, unfinished(7));
    count_run(second, unfinished(51));
    const SweepSummary merged = merge_shards(shard_files({first, second}), MergeMode::whole);
    CHECK(merged.designs[0].runs_unfinished == 3);
    CHECK(merged.designs[0].unfinished_seeds == std::vector<std::uint64_t>{7, 30, 51});
    const auto document = sweep_json(merged);
    CHECK(document.at("designs")[0].at("runs_unfinished") == 3);

    SweepSummary too_many = made_shard(2, 2);
    too_many.designs[0].runs_unfinished = 51;
    CHECK_THAT(merge_error({made_shard(1, 2), too_many}), Catch::Contains("51 unfinished runs out of 50"));
    SweepSummary foreign_seed = made_shard(2, 2);
    foreign_seed.designs[0].runs_unfinished = 1;
    foreign_seed.designs[0].unfinished_seeds = {3};  // shard 2/2 of 1…100 is 51…100
    CHECK_THAT(merge_error({made_shard(1, 2), foreign_seed}), Catch::Contains("unfinished seeds"));
}
