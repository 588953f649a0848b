// scenarios/schema/distribution_schema.cpp and sample_file.cpp: a histogram of counts and a
// file of observed durations, read wherever a random duration goes, with one-line errors
// that name the field and, for a file's line, the file and its line number.
#include <catch2/catch.hpp>

#include "tests/program_support.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "scenarios/schema/sha256.hpp"

using namespace locksim;
using namespace locksim::time_literals;

namespace {

// A folder of this test process's own for a scenario and its sample files; gone at the end.
class SampleFolder {
public:
    SampleFolder() : path_(std::filesystem::temp_directory_path() / ("locksim_samples_" + std::to_string(getpid()))) {
        std::filesystem::remove_all(path_);
        std::filesystem::create_directories(path_);
    }
    ~SampleFolder() { std::filesystem::remove_all(path_); }
    SampleFolder(const SampleFolder&) = delete;
    SampleFolder& operator=(const SampleFolder&) = delete;

    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path_ / name, std::ios::binary) << text;
        return (path_ / name).string();
    }
    // Where the scenario file is said to be: its sample files are named relative to it.
    std::string scenario_path() const { return (path_ / "scenario.json").string(); }
    // What the loader says of `text` as the scenario file of this folder.
    std::string error_of(const std::string& text) const { return locksim::testing::error_of(text, scenario_path()); }
    // One line, starting with the scenario file and naming `expected`.
    bool says(const std::string& error, const std::string& expected) const {
        return locksim::testing::says(error, expected, scenario_path());
    }

private:
    std::filesystem::path path_;
};

// A valid scenario whose pause generator draws its lengths from `pauses` and whose links
// delay messages by `delay`.
std::string scenario_with_pauses(const std::string& pauses, const std::string& delay = R"("1ms")") {
    return R"({
  "name": "observed",
  "description": "pauses as observed",
  "seed": 7,
  "horizon": "10m",
  "servers": ["server-1", "server-2"],
  "network": { "delay": )" +
           delay + R"( },
  "lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s" },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42], "period": "2026-10", "work_per_customer": "4s" },
  "fault_generators": [{ "pause": "servers", "mean_interval": "1m", "for": )" +
           pauses + R"( }],
  "designs": { "unfenced": {} }
})";
}

Scenario load(const SampleFolder& folder, const std::string& text) {
    return parse_scenario(text, folder.scenario_path(), metric_names());
}

const DurationDistribution& pauses_of(const Scenario& scenario) {
    return *scenario.designs.front().world.fault_generators.front().amounts.find("for");
}

}  // namespace

// --- histogram --------------------------------------------------------------------

TEST_CASE("a histogram of pause lengths loads as quantiles at the cumulative share of its counts") {
    const SampleFolder folder;
    const auto scenario = load(folder, scenario_with_pauses(R"({"histogram": [{"up_to": "10ms", "count": 950},
        {"up_to": "200ms", "count": 45}, {"up_to": "4s", "count": 4}, {"up_to": "15s", "count": 1}]})"));
    const auto points = points_of(pauses_of(scenario));
    REQUIRE(points.size() == 5);
    CHECK(points[0].probability == 0);
    CHECK(points[0].value == 0_s);
    CHECK(points[1].probability == 950'000'000);
    CHECK(points[1].value == 10_ms);
    CHECK(points[3].probability == 999'000'000);
    CHECK(points[4].probability == probability_scale);
    CHECK(points[4].value == 15_s);
}

TEST_CASE("a histogram may start at a minimum, and serves as a link's delay too") {
    const SampleFolder folder;
    const auto scenario = load(folder, scenario_with_pauses(R"("1s")", R"({"histogram": {"min": "200us",
        "buckets": [{"up_to": "1ms", "count": 3}, {"up_to": "5ms", "count": 0}, {"up_to": "80ms", "count": 1}]}})"));
    const auto points = points_of(scenario.designs.front().world.link_delay);
    REQUIRE(points.size() == 4);
    CHECK(points[0].value == 200_us);
    CHECK(points[1].probability == 750'000'000);
    CHECK(points[2].probability == 750'000'000);  // the empty bucket: a jump from 1ms to 5ms
    CHECK(points[2].value == 5_ms);
}

TEST_CASE("a histogram that says nothing, or not in order, is refused at the place it goes wrong") {
    const SampleFolder folder;
    CHECK(folder.says(folder.error_of(scenario_with_pauses(R"({"histogram": []})")),
                      "/fault_generators/0/for/histogram: expected at least one bucket"));
    CHECK(folder.says(folder.error_of(scenario_with_pauses(R"({"histogram": [{"up_to": "1s", "count": 0}]})")),
                      "/fault_generators/0/for/histogram: every bucket's count is 0"));
    CHECK(folder.says(folder.error_of(scenario_with_pauses(R"({"histogram": [{"up_to": "1s", "count": -1}]})")),
                      "/fault_generators/0/for/histogram/0/count: expected a number 0 or above, got -1"));
    CHECK(folder.says(
        folder.error_of(
            scenario_with_pauses(R"({"histogram": [{"up_to": "1s", "count": 1}, {"up_to": "500ms", "count": 1}]})")),
        "/fault_generators/0/for/histogram/1/up_to: expected bucket bounds that rise; 500ms is not above the "
        "previous bound, 1s"));
    CHECK(folder.says(
        folder.error_of(
            scenario_with_pauses(R"({"histogram": {"min": "2s", "buckets": [{"up_to": "1s", "count": 1}]}})")),
        "/fault_generators/0/for/histogram/min: expected a minimum at most the first bucket's bound, 1s"));
    CHECK(folder.says(
        folder.error_of(scenario_with_pauses(R"({"histogram": [{"up_to": "1s", "count": 18446744073709551615},
                                                               {"up_to": "2s", "count": 1}]})")),
        "/fault_generators/0/for/histogram/1/count: the counts add up to more than 2^64 - 1"));
    // A clock step may go back: only fixed and uniform values may be negative.
    std::string clock_steps = scenario_with_pauses(R"({"histogram": [{"up_to": "1s", "count": 1}]})");
    const std::string pause_generator = R"("pause": "servers", "mean_interval": "1m", "for": )";
    clock_steps.replace(clock_steps.find(pause_generator), pause_generator.size(),
                        R"("clock_step": "servers", "mean_interval": "1m", "by": )");
    CHECK(folder.says(folder.error_of(clock_steps),
                      "/fault_generators/0/by: expected a fixed duration or a uniform range"));
}

// --- observed ---------------------------------------------------------------------

TEST_CASE("a file of observed pauses, next to the scenario, loads as its empirical distribution") {
    const SampleFolder folder;
    folder.write("pauses.txt", "# GC pauses\n\n40ms\r\n  10ms  \n# a full GC:\n\t2.5s\n20ms\n30ms");
    const auto points = points_of(pauses_of(load(folder, scenario_with_pauses(R"({"observed": "pauses.txt"})"))));
    REQUIRE(points.size() == 5);
    CHECK(points[0].value == 10_ms);
    CHECK(points[1].probability == 250'000'000);
    CHECK(points[1].value == 20_ms);
    CHECK(points[4].probability == probability_scale);
    CHECK(points[4].value == 2500_ms);
}

TEST_CASE("the scenario's hash covers the files of samples it reads") {
    const SampleFolder folder;
    const std::string text = scenario_with_pauses(R"({"observed": "pauses.txt"})");
    folder.write("pauses.txt", "10ms\n20ms\n");
    const std::string first = load(folder, text).content_sha256;
    CHECK(load(folder, text).content_sha256 == first);  // the same bytes, the same hash
    folder.write("pauses.txt", "10ms\n25ms\n");
    const std::string edited = load(folder, text).content_sha256;
    CHECK(edited != first);
    // Without a data file the hash is the file's bytes alone, as before.
    const std::string fixed = scenario_with_pauses(R"("1s")");
    CHECK(load(folder, fixed).content_sha256 == sha256_hex(fixed));
}

TEST_CASE("a column of bare numbers loads in the unit the scenario gives") {
    const SampleFolder folder;
    folder.write("pauses-ms.txt", "12.5\n8\n230.75\n");
    const auto points = points_of(
        pauses_of(load(folder, scenario_with_pauses(R"({"observed": {"file": "pauses-ms.txt", "unit": "ms"}})"))));
    REQUIRE(points.size() == 3);
    CHECK(points[0].value == 8_ms);
    CHECK(points[1].value == 12500_us);
    CHECK(points[2].value == 230750_us);
}

TEST_CASE("a file of one observed pause is a fixed pause length") {
    const SampleFolder folder;
    folder.write("one.txt", "# only one\n40s\n");
    const Scenario scenario = load(folder, scenario_with_pauses(R"({"observed": "one.txt"})"));
    const auto& pauses = pauses_of(scenario);  // a reference into the scenario, which must outlive it
    CHECK(pauses.shape == DurationDistribution::Shape::fixed);
    CHECK(pauses.low == 40_s);
}

TEST_CASE("a file of a hundred thousand observed delays loads, one quantile per line") {
    const SampleFolder folder;
    std::string text = "# one delay per line\n";
    for (int i = 1; i <= 100'000; ++i) text += std::to_string(i) + "us\n";
    folder.write("delays.txt", text);
    const auto scenario = load(folder, scenario_with_pauses(R"("1s")", R"({"observed": "delays.txt"})"));
    const auto points = points_of(scenario.designs.front().world.link_delay);
    REQUIRE(points.size() == 100'000);
    CHECK(points.front().value == 1_us);
    CHECK(points[50'000].value == 50'001_us);
    CHECK(points.back().value == 100_ms);
}

TEST_CASE("an observed file that cannot be used is refused naming the field, the file and the line") {
    const SampleFolder folder;
    const std::string file = (std::filesystem::path(folder.scenario_path()).parent_path() / "pauses.txt").string();
    SECTION("a file that is not there") {
        CHECK(folder.says(
            folder.error_of(scenario_with_pauses(R"({"observed": "pauses.txt"})")),
            "/fault_generators/0/for/observed: " + file + ": cannot open the file: No such file or directory"));
    }
    SECTION("a folder") {
        CHECK(folder.says(folder.error_of(scenario_with_pauses(R"({"observed": "."})")), "is a directory"));
    }
    SECTION("a line that is no duration") {
        folder.write("pauses.txt", "# pauses\n12ms\n\n4.2 s\n");
        CHECK(folder.says(folder.error_of(scenario_with_pauses(R"({"observed": "pauses.txt"})")),
                          "/fault_generators/0/for/observed: " + file + ":4: expected a duration such as"));
    }
    SECTION("bare numbers without their unit") {
        folder.write("pauses.txt", "12.5\n8\n");
        CHECK(folder.says(
            folder.error_of(scenario_with_pauses(R"({"observed": "pauses.txt"})")),
            file + ":1: expected a duration such as \"12ms\" or \"4.2s\", got the bare number \"12.5\"; for a "
                   "column of bare numbers, give their unit: {\"observed\": {\"file\": \"pauses.txt\", "
                   "\"unit\": \"ms\"}}"));
    }
    SECTION("units in a file whose unit the scenario gives") {
        folder.write("pauses.txt", "12.5\n8ms\n");
        CHECK(
            folder.says(folder.error_of(scenario_with_pauses(R"({"observed": {"file": "pauses.txt", "unit": "ms"}})")),
                        "/fault_generators/0/for/observed/file: " + file + ":2: expected a bare number of ms"));
    }
    SECTION("an unknown unit") {
        CHECK(folder.says(
            folder.error_of(scenario_with_pauses(R"({"observed": {"file": "pauses.txt", "unit": "msec"}})")),
            "/fault_generators/0/for/observed/unit: unknown unit \"msec\""));
    }
    SECTION("no samples") {
        folder.write("pauses.txt", "# nothing measured yet\n\n   \n");
        CHECK(folder.says(folder.error_of(scenario_with_pauses(R"({"observed": "pauses.txt"})")),
                          "/fault_generators/0/for/observed: " + file + " holds no samples"));
    }
    SECTION("a file that is not durations is described, not quoted (a scenario may name /etc/shadow)") {
        folder.write("pauses.txt", "root:$y$j9T$secretsalt$hashhashhash:19000:0:99999:7:::\n");
        const std::string error = folder.error_of(scenario_with_pauses(R"({"observed": "pauses.txt"})"));
        CHECK(folder.says(error, file + ":1: expected a duration such as \"12ms\" or \"4.2s\", got a line of 54 "
                                        "characters that does not begin with a number (is this a file of durations?)"));
        CHECK(error.find("root") == std::string::npos);
    }
    SECTION("a line that begins as a number but is longer than any duration shows only its beginning") {
        folder.write("pauses.txt", "12ms\n3fa9c1d27e6b5a4f8c0d9e1b2a3c4d5e6f708192a3b4c5d6\n");
        const std::string error = folder.error_of(scenario_with_pauses(R"({"observed": "pauses.txt"})"));
        CHECK(folder.says(error, file + ":2: expected one duration on the line, got 48 characters beginning "
                                        "\"3fa9c1d27e6b…\""));
        CHECK(error.find("8192a3") == std::string::npos);
    }
    SECTION("a duration above a week") {
        folder.write("pauses.txt", "1s\n169h\n");
        CHECK(folder.says(folder.error_of(scenario_with_pauses(R"({"observed": "pauses.txt"})")),
                          file + ":2: expected at most 168h, got \"169h\""));
    }
}

TEST_CASE("a run with observed pauses replays byte for byte from the same file and seed") {
    const SampleFolder folder;
    folder.write("pauses.txt", "5ms\n12ms\n30ms\n250ms\n1.5s\n8s\n");
    const std::string scenario = folder.write("scenario.json", scenario_with_pauses(R"({"observed": "pauses.txt"})"));
    const auto first = testing::run_locksim("run '" + scenario + "' --format json");
    const auto second = testing::run_locksim("run '" + scenario + "' --format json");
    REQUIRE(first.exit_code == 0);
    CHECK(first.out == second.out);
    const auto other_seed = testing::run_locksim("run '" + scenario + "' --format json --seed 8");
    CHECK(other_seed.out != first.out);
}
