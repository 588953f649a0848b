// `locksim sweep` for a CI job and a reader of its numbers: one design only, rate gates
// that exit 1 with JUnit, and rates as incidents a day, with what the interval covers.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

#include "tests/program_support.hpp"

using namespace locksim::testing;

TEST_CASE("sweep --design runs only that design") {
    const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 300 --design fenced --format json");
    REQUIRE(ran.exit_code == 0);
    const nlohmann::json sweep = nlohmann::json::parse(ran.out);
    REQUIRE(sweep.at("designs").size() == 1);
    CHECK(sweep.at("designs")[0].at("name") == "fenced");
    CHECK(sweep.at("designs")[0].at("runs") == 300);
    const auto unknown = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 3 --design nope");
    CHECK(unknown.exit_code == 2);
    CHECK(unknown.err.find("no design named \"nope\"; the designs are unfenced, fenced, idempotent") !=
          std::string::npos);
}

TEST_CASE("a rate gate exits 1 when the rate is above it, 0 when not, and writes each gate as a JUnit test case") {
    // 2000 seeds: 6 fenced runs with a violation (0.3 %), none idempotent.
    const auto junit = write_temp("gates.xml", "");
    const auto breached = run_locksim(
        "sweep scenarios/random-gc-pauses.json --seeds 2000 --max-rate fenced=0.1% "
        "--max-rate idempotent=0 --junit " +
        junit);
    CHECK(breached.exit_code == 1);
    CHECK(breached.err.find("FAIL rate gate fenced: 6 of 2000 runs (0.3%") != std::string::npos);
    CHECK(breached.err.find("replay: ") != std::string::npos);
    CHECK(breached.err.find("PASS rate gate idempotent: 0 of 2000 runs") != std::string::npos);
    const std::string xml = slurp(junit);
    CHECK(xml.find("<testsuites name=\"locksim sweep\" tests=\"2\" failures=\"1\" errors=\"0\" time=\"0\">") !=
          std::string::npos);
    CHECK(xml.find("name=\"violation rate of fenced at most 0.1%\"") != std::string::npos);

    const auto held = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 2000 --max-rate fenced=0.003");
    CHECK(held.exit_code == 0);  // 6/2000 is exactly 0.003: at most, not above
    CHECK(held.err.find("PASS rate gate fenced") != std::string::npos);
    std::filesystem::remove(junit);
}

TEST_CASE("a rate gate that cannot be judged is refused with exit 2 and says why") {
    const auto refused = [](const std::string& arguments) {
        const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 10 " + arguments);
        CHECK(ran.exit_code == 2);
        CHECK(ran.out.empty());
        return ran.err;
    };
    CHECK(refused("--max-rate fenced").find("expected DESIGN=RATE") != std::string::npos);
    CHECK(refused("--max-rate nope=0.1").find("no design named \"nope\"") != std::string::npos);
    CHECK(refused("--max-rate fenced=2").find("a rate from 0 to 1") != std::string::npos);
    CHECK(refused("--max-rate fenced=-1%").find("a rate from 0 to 1") != std::string::npos);
    CHECK(refused("--max-rate fenced=0.1 --shard 1/2").find("not one shard") != std::string::npos);
    CHECK(refused("--design idempotent --max-rate fenced=0.1").find("runs only the design") != std::string::npos);
}

TEST_CASE("runs per day turn each rate into incidents a day and a year, and the output says what the interval covers") {
    const auto ran = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 2000 --runs-per-day 288");
    REQUIRE(ran.exit_code == 0);
    // fenced: 6/2000 × 288 = 0.864 a day, 315.36 a year.
    CHECK(ran.out.find("At 288 runs a day:") != std::string::npos);
    CHECK(ran.out.find("fenced: 0.86 incidents a day (") != std::string::npos);
    CHECK(ran.out.find(", 315 a year (") != std::string::npos);
    CHECK(ran.out.find("idempotent: 0 incidents a day (0–") != std::string::npos);
    CHECK(ran.out.find("cover the sampling error of these seeds only, not the model's") != std::string::npos);
}

TEST_CASE("a sweep's runs with a violation are each counted in a column of their own, foreign releases too") {
    // plain-delete's first design deletes server 2's lock in every run, and nothing else breaks.
    const auto ran = run_locksim("sweep scenarios/plain-delete.json --seeds 3 --format json");
    REQUIRE(ran.exit_code == 0);
    const nlohmann::json sweep = nlohmann::json::parse(ran.out);
    const auto& plain = sweep.at("designs")[0];
    REQUIRE(plain.at("name") == "plain-delete");
    CHECK(plain.at("runs_with_violation") == 3);
    CHECK(plain.at("foreign_releases") == 3);
    CHECK(sweep.at("designs")[1].at("foreign_releases") == 0);
    const auto text = run_locksim("sweep scenarios/plain-delete.json --seeds 3");
    CHECK_THAT(text.out, Catch::Contains("foreign releases"));
}
