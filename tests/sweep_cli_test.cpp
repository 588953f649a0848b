// `locksim sweep` and `locksim merge` as a cluster user meets them: one run per seed on any
// number of threads, shards that say what produced them, merges that refuse what is not
// provably one sweep, and files that are whole or absent.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/program_support.hpp"

using namespace locksim::testing;

namespace {

std::string quoted(const std::filesystem::path& path) {
    return "'" + path.string() + "'";
}

}  // namespace

TEST_CASE("a one-seed sweep on 16 threads reports one run per design") {
    for (int repeat = 0; repeat < 5; ++repeat) {
        const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 1 -j 16 --format json");
        REQUIRE(ran.exit_code == 0);
        const nlohmann::json sweep = nlohmann::json::parse(ran.out);
        for (const auto& design : sweep.at("designs")) CHECK(design.at("runs") == 1);
    }
}

TEST_CASE("a sweep file says what produced it") {
    const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 2 --start 5 --format json");
    REQUIRE(ran.exit_code == 0);
    const auto provenance = nlohmann::json::parse(ran.out).at("provenance");
    CHECK(provenance.at("scenario_sha256").get<std::string>().size() == 64);
    CHECK(provenance.at("locksim_version") == "0.1.0");
    CHECK_FALSE(provenance.at("commit").get<std::string>().empty());
    CHECK(provenance.at("command") == "locksim sweep scenarios/random-gc-pauses.json --seeds 2 --start 5");
}

TEST_CASE("locksim --version names the commit it was built from") {
    const auto ran = run_locksim("--version");
    CHECK_THAT(ran.out,
               Catch::Matches("locksim 0\\.1\\.0 \\(commit ([0-9a-f]{12}(-dirty\\.[0-9a-f]{8})?|unknown)\\)\n"));
}

TEST_CASE("shards written with --output merge into exactly the unsharded sweep") {
    const auto dir = fresh_directory("shards");
    for (int i = 1; i <= 3; ++i) {
        const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 40 --shard " + std::to_string(i) +
                                     "/3 -j 8 --output " + quoted(dir / ("shard-" + std::to_string(i) + ".json")));
        REQUIRE(ran.exit_code == 0);
        CHECK(ran.out.empty());
    }
    // Nothing but the three shards: no temporary file is left behind.
    CHECK(std::distance(std::filesystem::directory_iterator(dir), std::filesystem::directory_iterator()) == 3);
    const auto merged = run_locksim("merge --format json " + quoted(dir / "shard-3.json") + " " +
                                    quoted(dir / "shard-1.json") + " " + quoted(dir / "shard-2.json"));
    REQUIRE(merged.exit_code == 0);
    const auto whole = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 40 -j 1 --format json");
    CHECK(merged.out == whole.out);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a shard of a Slurm array task takes its index from the environment") {
    const auto dir = fresh_directory("slurm");
    const auto ran = run_locksim(
        "sweep scenarios/random-gc-pauses.json --seeds 8 --shard slurm/4 --output " + quoted(dir / "shard.json"),
        "SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4");
    REQUIRE(ran.exit_code == 0);
    CHECK_THAT(ran.err, Catch::Contains("shard 2/4 (SLURM_ARRAY_TASK_ID=2)"));
    const auto shard = nlohmann::json::parse(slurp(dir / "shard.json"));
    CHECK(shard.at("shard").at("index") == 2);
    CHECK(shard.at("covered").at("first") == 3);
    const auto zero_based = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 8 --shard slurm/4",
                                        "SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3");
    CHECK(zero_based.exit_code == 2);
    CHECK_THAT(zero_based.err, Catch::Contains("--array=1-4"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("more shards than seeds are refused") {
    const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 3 --shard 1/8");
    CHECK(ran.exit_code == 2);
    CHECK_THAT(ran.err, Catch::Contains("3 seeds cannot fill 8 shards"));
}

TEST_CASE("merge refuses the shard of an edited scenario, and merges one moved to another path") {
    const auto dir = fresh_directory("edited");
    const std::string original = slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/random-gc-pauses.json");
    std::filesystem::create_directories(dir / "moved");
    std::ofstream(dir / "moved" / "random-gc-pauses.json") << original;
    std::string edited = original;
    edited.replace(edited.find("\"description\": \""), 16, "\"description\": \"Edited. ");
    std::ofstream(dir / "edited.json") << edited;

    REQUIRE(run_locksim("sweep scenarios/random-gc-pauses.json --seeds 6 --shard 1/2 -o " + quoted(dir / "a.json"))
                .exit_code == 0);
    REQUIRE(run_locksim("sweep " + quoted(dir / "moved" / "random-gc-pauses.json") + " --seeds 6 --shard 2/2 -o " +
                        quoted(dir / "b.json"))
                .exit_code == 0);
    REQUIRE(run_locksim("sweep " + quoted(dir / "edited.json") + " --seeds 6 --shard 2/2 -o " + quoted(dir / "c.json"))
                .exit_code == 0);

    CHECK(run_locksim("merge " + quoted(dir / "a.json") + " " + quoted(dir / "b.json")).exit_code == 0);
    const auto refused = run_locksim("merge " + quoted(dir / "a.json") + " " + quoted(dir / "c.json"));
    CHECK(refused.exit_code == 2);
    CHECK_THAT(refused.err,
               Catch::Contains((dir / "c.json").string()) && Catch::Contains("provenance.scenario_sha256"));
    CHECK(count_of(refused.err, "\n") == 1);
    std::filesystem::remove_all(dir);
}

TEST_CASE("merge names a killed shard, lists the missing for sbatch, and totals a partial array") {
    const auto dir = fresh_directory("killed");
    for (int i : {1, 2, 4})
        REQUIRE(run_locksim("sweep scenarios/random-gc-pauses.json --seeds 20 --shard " + std::to_string(i) + "/4 -o " +
                            quoted(dir / ("shard-" + std::to_string(i) + ".json")))
                    .exit_code == 0);
    const std::string second = slurp(dir / "shard-2.json");
    std::ofstream(dir / "shard-2.json", std::ios::trunc) << second.substr(0, second.size() / 3);  // killed mid-write
    std::ofstream(dir / "shard-3.json", std::ios::trunc);  // killed before writing
    const std::string all = quoted(dir) + "/shard-*.json";

    const auto merged = run_locksim("merge " + all);
    CHECK(merged.exit_code == 2);
    CHECK_THAT(merged.err, Catch::Contains("shard 2/4 is incomplete") && Catch::Contains("rerun it"));

    const auto missing = run_locksim("merge --missing " + all);
    CHECK(missing.exit_code == 0);
    CHECK(missing.out == "2-3\n");

    const auto partial = run_locksim("merge --partial " + all);
    CHECK(partial.exit_code == 0);
    CHECK_THAT(partial.out, Catch::Contains("PARTIAL: shards 1,4 of 4 (10 of 20 seeds); still missing: 2-3"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("merge --missing prints nothing when every shard is there") {
    const auto dir = fresh_directory("complete");
    REQUIRE(run_locksim("sweep scenarios/random-gc-pauses.json --seeds 2 --shard 1/1 -o " + quoted(dir / "s.json"))
                .exit_code == 0);
    const auto missing = run_locksim("merge --missing " + quoted(dir / "s.json"));
    CHECK(missing.exit_code == 0);
    CHECK(missing.out.empty());
    CHECK_THAT(missing.err, Catch::Contains("the one shard is present and complete"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("sweep with --output into a directory that does not exist is a one-line error before any run") {
    // A billion seeds would run for days: the refusal comes first.
    const auto ran =
        run_locksim("sweep scenarios/random-gc-pauses.json --seeds 1000000000 --output /nonexistent/dir/s.json");
    CHECK(ran.exit_code == 2);
    CHECK(ran.err == "--output /nonexistent/dir/s.json: the folder /nonexistent/dir does not exist; create it first\n");
}

TEST_CASE("a thread count beyond any machine is refused as a typing mistake") {
    const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 1 -j 100000");
    CHECK(ran.exit_code == 2);
    CHECK_THAT(ran.err, Catch::StartsWith("--jobs: at most 4096 threads"));
}

TEST_CASE("a shard run with a raised event limit says so in the command that reproduces it") {
    const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 2 --max-events 1000000 --format json");
    REQUIRE(ran.exit_code == 0);
    CHECK(nlohmann::json::parse(ran.out).at("provenance").at("command") ==
          "locksim sweep scenarios/random-gc-pauses.json --seeds 2 --start 1 --max-events 1000000");
}

TEST_CASE("merge given a directory says to give the files in it") {
    const auto ran = run_locksim("merge scenarios");
    CHECK(ran.exit_code == 2);
    CHECK_THAT(ran.err, Catch::Contains("scenarios: is a directory"));
}
