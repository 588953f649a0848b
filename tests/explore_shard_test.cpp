// `locksim explore --shard i/n` and `locksim merge` of its shards: the merge prints exactly
// what one unsharded explore prints, and refuses shards that are not one exploration.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/program_support.hpp"
#include "tests/small_explore.hpp"

using namespace locksim::testing;

namespace {

const std::string gc_pause_file = "scenarios/gc-pause-40s.json";

std::string shard_path_quoted(const std::filesystem::path& path) {
    return "'" + path.string() + "'";
}

// Writes shard i of n of `file` to DIR/shard-i.json and returns its path.
std::filesystem::path explore_shard(const std::string& file, int i, int n, const std::filesystem::path& dir,
                                    const std::string& extra = "") {
    const auto path = dir / ("shard-" + std::to_string(i) + ".json");
    const auto ran = run_locksim("explore " + file + " -j 2 --shard " + std::to_string(i) + "/" + std::to_string(n) +
                                 " --output " + shard_path_quoted(path) + extra);
    INFO("shard " << i << "/" << n << " printed: " << ran.err);
    REQUIRE(ran.exit_code == 0);
    CHECK(ran.out.empty());
    CHECK_THAT(ran.err, Catch::Contains("placement runs, then"));
    return path;
}

// The flagship cut down to a few dozen units per design (tests/small_explore.hpp).
std::string small_explore_file() {
    return write_temp("small-explore.json", flagship_with_small_explore().dump(2));
}

// `text` with its first `from` replaced by `to`.
std::string replace_first(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("explore shards merge into exactly the unsharded explore, in text and JSON, in any order") {
    // Every design of the flagship, so that shards split across designs.
    const auto small = small_explore_file();
    const std::string file = shard_path_quoted(small);
    const auto whole_json = run_locksim("explore " + file + " -j 2 --format json");
    const auto whole_text = run_locksim("explore " + file + " -j 2");
    REQUIRE(whole_json.exit_code == 0);
    REQUIRE(whole_text.exit_code == 0);
    REQUIRE(nlohmann::json::parse(whole_json.out).at("designs").size() == 3);
    const auto dir = fresh_directory("explore_shards");
    const auto one = explore_shard(file, 1, 3, dir);
    const auto two = explore_shard(file, 2, 3, dir);
    const auto three = explore_shard(file, 3, 3, dir);

    // Each shard did part of the work: placements and start classes both.
    const auto part = nlohmann::json::parse(slurp(two));
    CHECK(part.at("shard") == nlohmann::json{{"index", 2}, {"of", 3}});
    CHECK(part.at("provenance").at("command") == "locksim explore " + small + " --seed 1 --shard 2/3");
    CHECK(part.at("units").at("outcomes").size() > 0);
    CHECK(part.at("units").at("outcomes").size() < part.at("explore").at("units").get<std::size_t>());

    const auto merged_json = run_locksim("merge --format json " + shard_path_quoted(three) + " " +
                                         shard_path_quoted(one) + " " + shard_path_quoted(two));
    CHECK(merged_json.exit_code == 0);
    CHECK(merged_json.out == whole_json.out);
    const auto merged_text =
        run_locksim("merge " + shard_path_quoted(two) + " " + shard_path_quoted(three) + " " + shard_path_quoted(one));
    CHECK(merged_text.exit_code == 0);
    CHECK(merged_text.out == whole_text.out);

    const auto missing = run_locksim("merge " + shard_path_quoted(one) + " " + shard_path_quoted(three));
    CHECK(missing.exit_code == 2);
    CHECK_THAT(missing.err, Catch::Contains("shard 2/3 is missing"));
    CHECK(run_locksim("merge --missing " + shard_path_quoted(one) + " " + shard_path_quoted(three)).out == "2\n");
    CHECK(run_locksim("merge --partial " + shard_path_quoted(one) + " " + shard_path_quoted(three)).exit_code == 2);
}

TEST_CASE("explore --shard 1/1 is the whole exploration, and more shards than units leaves some empty") {
    // One design of the cut-down flagship, so that a shard per unit and two more stay quick.
    const std::string file = shard_path_quoted(small_explore_file()) + " --design unfenced";
    const auto whole = run_locksim("explore " + file + " -j 2 --format json");
    REQUIRE(whole.exit_code == 0);
    CHECK(nlohmann::json::parse(whole.out).at("designs").at(0).at("regions").size() > 1);
    const auto dir = fresh_directory("explore_shards_one");
    const auto only = explore_shard(file, 1, 1, dir);
    CHECK(run_locksim("merge --format json " + shard_path_quoted(only)).out == whole.out);

    const auto many = fresh_directory("explore_shards_many");
    const std::size_t units = nlohmann::json::parse(slurp(only)).at("explore").at("units").get<std::size_t>();
    const int shards = static_cast<int>(units) + 2;
    std::string all;
    int empty = 0;
    for (int i = 1; i <= shards; ++i) {
        const auto path = explore_shard(file, i, shards, many);
        empty += nlohmann::json::parse(slurp(path)).at("units").at("outcomes").empty() ? 1 : 0;
        all += " " + shard_path_quoted(path);
    }
    CHECK(empty == 2);
    const auto merged = run_locksim("merge --format json" + all);
    CHECK(merged.exit_code == 0);
    CHECK(merged.out == whole.out);
}

TEST_CASE("merge refuses an explore shard of another file, another exploration, or a sweep's") {
    const auto dir = fresh_directory("explore_shards_mixed");
    const auto one = explore_shard(gc_pause_file + " --design idempotent", 1, 2, dir);
    const auto other_dir = fresh_directory("explore_shards_other");
    const auto other = explore_shard("scenarios/check-before-charge.json", 2, 2, other_dir);
    const auto refused = run_locksim("merge " + shard_path_quoted(one) + " " + shard_path_quoted(other));
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err,
               Catch::Contains("is not a shard of the same sweep") && Catch::Contains("provenance.scenario_sha256"));

    const auto seeded = explore_shard(gc_pause_file + " --design idempotent --seed 7", 2, 2, other_dir);
    const auto reseeded = run_locksim("merge " + shard_path_quoted(one) + " " + shard_path_quoted(seeded));
    CHECK(reseeded.exit_code == 2);
    CHECK_THAT(reseeded.err, Catch::Contains("explore is"));

    const auto sweep = other_dir / "sweep.json";
    REQUIRE(run_locksim("sweep " + gc_pause_file + " --seeds 2 --shard 2/2 --output " + shard_path_quoted(sweep))
                .exit_code == 0);
    const auto mixed = run_locksim("merge " + shard_path_quoted(one) + " " + shard_path_quoted(sweep));
    CHECK(mixed.exit_code == 2);
    CHECK_THAT(mixed.err, Catch::Contains("a sweep's shard"));
}

TEST_CASE("merge refuses explore shards once their scenario file has changed") {
    const auto dir = fresh_directory("explore_shards_edited");
    const auto copy = dir / "gc.json";
    std::filesystem::copy_file(std::filesystem::path(LOCKSIM_SOURCE_DIR) / gc_pause_file, copy);
    const std::string file = shard_path_quoted(copy) + " --design idempotent";
    const auto one = explore_shard(file, 1, 2, dir);
    const auto two = explore_shard(file, 2, 2, dir);
    REQUIRE(run_locksim("merge " + shard_path_quoted(one) + " " + shard_path_quoted(two)).exit_code == 0);
    std::ofstream(copy, std::ios::app) << "\n";
    const auto refused = run_locksim("merge " + shard_path_quoted(one) + " " + shard_path_quoted(two));
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err, Catch::Contains("is not the file the shards explored"));
}

TEST_CASE("an explore shard is read strictly, and ends edited out of their start class's shape are refused") {
    const auto dir = fresh_directory("explore_shards_strict");
    const std::string file = shard_path_quoted(small_explore_file()) + " --design fenced";
    const auto one = explore_shard(file, 1, 2, dir);
    const auto two = explore_shard(file, 2, 2, dir);
    const std::string both = " " + shard_path_quoted(one) + " " + shard_path_quoted(two);
    const std::string text = slurp(two);

    std::ofstream(two) << replace_first(text, "\"prune\": true,", "\"prune\": true, \"prune\": false,");
    const auto twice = run_locksim("merge" + both);
    CHECK(twice.exit_code == 2);
    CHECK_THAT(twice.err, Catch::Matches(".*shard-2\\.json:[0-9]+:[0-9]+: /explore/prune: this field appears twice in "
                                         "the same object\n"));

    std::ofstream(two) << replace_first(text, "\"prune\": true,", "\"prune\": true, \"pruned\": 1,");
    CHECK_THAT(run_locksim("merge" + both).err, Catch::Contains(": /explore/pruned: unknown field \"pruned\""));

    // A start class's first end moved: its ends no longer begin at its first start's shortest length.
    auto shard = nlohmann::ordered_json::parse(text);
    for (auto& outcome : shard["units"]["outcomes"])
        if (outcome.is_object() && outcome.contains("ends")) {
            outcome["ends"][0][0] = outcome["ends"][0][0].get<std::int64_t>() + 5;
            break;
        }
    std::ofstream(two) << shard.dump(2);
    const auto moved = run_locksim("merge" + both);
    CHECK(moved.exit_code == 2);
    CHECK_THAT(moved.err, Catch::StartsWith("merge: the shards' unit ") &&
                              Catch::Contains("(of design fenced) holds ends that are not those of its start class"));
}

TEST_CASE("merge --verify reruns explore shards' units, violating ones first, and refuses an edited one") {
    const auto dir = fresh_directory("explore_shards_verify");
    const std::string file = shard_path_quoted(small_explore_file()) + " --design fenced";
    const auto one = explore_shard(file, 1, 2, dir);
    const auto two = explore_shard(file, 2, 2, dir);
    const std::string both = " " + shard_path_quoted(one) + " " + shard_path_quoted(two);
    const auto whole = run_locksim("merge" + both);
    const auto verified = run_locksim("merge --verify 2" + both);
    CHECK(verified.exit_code == whole.exit_code);
    CHECK(verified.out == whole.out);
    CHECK_THAT(verified.err, Catch::StartsWith("merge --verify: reran 4 units of the exploration in 2 shards (") &&
                                 Catch::EndsWith("): every one gave what its shard recorded\n"));

    // The first violating placement of shard 1 edited to none: it still merges, into other windows.
    auto shard = nlohmann::ordered_json::parse(slurp(one));
    std::size_t edited = 0;
    for (auto& outcome : shard["units"]["outcomes"]) {
        if (outcome.is_number() && outcome.get<std::uint32_t>() > 0) {
            outcome = 0;
            break;
        }
        ++edited;
    }
    REQUIRE(edited < shard["units"]["outcomes"].size());
    std::ofstream(one) << shard.dump(2);
    CHECK(run_locksim("merge" + both).out != whole.out);
    const auto refused = run_locksim("merge --verify 1000" + both);
    CHECK(refused.exit_code == 2);
    CHECK(refused.out.empty());
    CHECK_THAT(refused.err, Catch::Contains(fmt::format("shard-1.json: shard 1/2 does not reproduce: unit {}: the "
                                                        "shard says 0, the run gives ",
                                                        edited)));
}
