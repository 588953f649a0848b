// Parameter studies: `sweep FILE --vary FIELD=V1,V2 …` runs the same seeds at every point
// of the grid, so each point's totals are those of a plain sweep of the file with that
// value written in.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "runners/study_runner.hpp"
#include "tests/program_support.hpp"

using locksim::testing::run_locksim;

TEST_CASE("a study's point has the totals of a plain sweep of the file with that value written in") {
    const auto study =
        run_locksim("sweep scenarios/random-gc-pauses.json --seeds 300 --vary lock.ttl=5s,10s --format json -j 2");
    REQUIRE(study.exit_code == 0);
    const auto document = nlohmann::json::parse(study.out);
    REQUIRE(document.at("points").size() == 2);
    CHECK(document.at("points")[0].at("values").at("lock.ttl") == "5s");
    CHECK(document.at("points")[1].at("values").at("lock.ttl") == "10s");

    // The file says 10s: the second point is the plain sweep.
    const auto plain = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 300 --format json");
    REQUIRE(plain.exit_code == 0);
    const auto sweep = nlohmann::json::parse(plain.out);
    const auto& at_10s = document.at("points")[1].at("designs");
    REQUIRE(at_10s.size() == sweep.at("designs").size());
    for (std::size_t d = 0; d < at_10s.size(); ++d) {
        CHECK(at_10s[d].at("name") == sweep.at("designs")[d].at("name"));
        CHECK(at_10s[d].at("runs_with_violation") == sweep.at("designs")[d].at("runs_with_violation"));
        CHECK(at_10s[d].at("failing_seeds") == sweep.at("designs")[d].at("failing_seeds"));
    }
    // A shorter lease against the same pauses breaks the unfenced design at least as often.
    CHECK(document.at("points")[0].at("designs")[0].at("runs_with_violation") >= at_10s[0].at("runs_with_violation"));
}

TEST_CASE("a study is the same on one thread and on more threads than seeds, at one seed per point") {
    const std::string command =
        "sweep scenarios/random-gc-pauses.json --seeds 1 --start 7 --vary lock.ttl=5s,30s "
        "--vary fault_generators/0/mean_interval=10s,1m,5m --format json";
    const auto one = run_locksim(command + " -j 1");
    const auto many = run_locksim(command + " -j 16");
    REQUIRE(one.exit_code == 0);
    CHECK(one.out == many.out);
    const auto document = nlohmann::json::parse(one.out);
    REQUIRE(document.at("points").size() == 6);
    // The first field varies slowest.
    CHECK(document.at("points")[2].at("values").at("lock.ttl") == "5s");
    CHECK(document.at("points")[3].at("values").at("lock.ttl") == "30s");
    CHECK(document.at("points")[3].at("values").at("fault_generators/0/mean_interval") == "10s");
    for (const auto& point : document.at("points"))
        for (const auto& design : point.at("designs")) CHECK(design.at("runs") == 1);
}

TEST_CASE("the text table has a row per point and design and says what its intervals cover") {
    const auto study =
        run_locksim("sweep scenarios/random-gc-pauses.json --seeds 20 --design fenced --vary lock.ttl=5s,30s");
    REQUIRE(study.exit_code == 0);
    CHECK_THAT(study.out, Catch::Contains("a study of 2 points · seeds 1…20 at every point"));
    CHECK_THAT(study.out, Catch::Contains("lock.ttl   design   runs"));
    CHECK(locksim::testing::count_of(study.out, "fenced   20") == 2);
    CHECK_THAT(study.out, Catch::Contains("not the model's"));
}

TEST_CASE("unusable --vary arguments exit 2 with one line that says what to write") {
    const auto no_values = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 5 --vary lock.ttl");
    CHECK(no_values.exit_code == 2);
    CHECK_THAT(no_values.err, Catch::Contains("expected FIELD=VALUE,VALUE…"));
    const auto empty_value = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 5 --vary lock.ttl=5s,,10s");
    CHECK(empty_value.exit_code == 2);
    const auto bad_value = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 5 --vary lock.ttl=5s,abc");
    CHECK(bad_value.exit_code == 2);
    CHECK_THAT(bad_value.err, Catch::StartsWith("scenarios/random-gc-pauses.json:") &&
                                  Catch::Contains("/lock/ttl: expected a duration"));
    const auto nowhere = run_locksim("sweep scenarios/random-gc-pauses.json --seeds 5 --vary nope.ttl=5s");
    CHECK(nowhere.exit_code == 2);
    CHECK_THAT(nowhere.err, Catch::Contains("the file has no object at /nope"));
    const auto gated =
        run_locksim("sweep scenarios/random-gc-pauses.json --seeds 5 --vary lock.ttl=5s --max-rate fenced=0.1");
    CHECK(gated.exit_code == 2);
    CHECK_THAT(gated.err, Catch::Contains("takes no --shard, --max-rate"));
    std::string huge = "sweep scenarios/random-gc-pauses.json --seeds 1";
    for (const char* field : {"horizon", "lock.ttl", "network.delay"})
        huge += fmt::format(" --vary {}=1m,2m,3m,4m,5m,6m,7m,8m,9m,10m,11m,12m,13m", field);
    const auto too_big = run_locksim(huge);
    CHECK(too_big.exit_code == 2);
    CHECK_THAT(too_big.err, Catch::Contains("more than 2000 points"));
}

TEST_CASE("a field varied twice, or with a field inside it, is refused in one line naming both --vary") {
    // Both would print columns while the later value silently won.
    const auto twice = run_locksim(
        "sweep scenarios/random-gc-pauses.json --seeds 5 --vary lock.ttl=5s,10s --vary "
        "/lock/ttl=20s");
    CHECK(twice.exit_code == 2);
    CHECK(twice.out.empty());
    CHECK(twice.err ==
          "--vary /lock/ttl=20s: /lock/ttl is varied already, by --vary lock.ttl=5s,10s; give each field once, with "
          "all its values\n");
    const auto parent_after = run_locksim(
        R"(sweep scenarios/random-gc-pauses.json --seeds 5 --vary lock.ttl=5s,10s --vary 'lock={"store": "redis"}')");
    CHECK(parent_after.exit_code == 2);
    CHECK(parent_after.err ==
          "--vary lock={\"store\": \"redis\"}: lock holds lock.ttl, which --vary lock.ttl=5s,10s varies too; vary "
          "one or the other\n");
    const auto child_after = run_locksim(
        R"(sweep scenarios/random-gc-pauses.json --seeds 5 --vary 'lock={"store": "redis"}' --vary lock.ttl=5s)");
    CHECK(child_after.exit_code == 2);
    CHECK(child_after.err ==
          "--vary lock.ttl=5s: lock.ttl is inside lock, which --vary lock={\"store\": \"redis\"} varies too; vary "
          "one or the other\n");
    // Fields that only share a prefix of their names are apart.
    const auto apart = run_locksim(
        "sweep scenarios/random-gc-pauses.json --seeds 2 --vary lock.ttl=5s,10s --vary lock.ttl_extra=1 --format json");
    CHECK_THAT(apart.err, !Catch::Contains("varied already") && !Catch::Contains("inside"));
}

TEST_CASE("a value that reads as JSON is that value, and commas inside brackets and quotes do not split") {
    const auto field = locksim::parse_varied_field(R"(network.delay={"uniform": ["1ms", "3ms"]},2ms,3,"a,b")");
    REQUIRE(field);
    CHECK(field->pointer == "/network/delay");
    REQUIRE(field->values.size() == 4);
    CHECK(field->values[0].at("uniform")[1] == "3ms");
    CHECK(field->values[1] == "2ms");
    CHECK(field->values[2] == 3);
    CHECK(field->values[3] == "a,b");
    CHECK(field->written[0] == R"({"uniform": ["1ms", "3ms"]})");
    CHECK(locksim::parse_varied_field("/lock/ttl=1s")->pointer == "/lock/ttl");
}

TEST_CASE("a design that sets the varied field itself is marked: the values never reached it") {
    // clock-chaos's zookeeper design writes its own fault_generators (its store's nodes are
    // others), so a value varied in the base world's generators is not its own.
    const std::string command =
        "sweep scenarios/clock-chaos.json --seeds 5 --vary fault_generators/0/mean_interval=10s,40s";
    const auto text = run_locksim(command);
    REQUIRE(text.exit_code == 0);
    // The column is as wide as the field's name, 32, and three spaces part the columns.
    CHECK(locksim::testing::count_of(text.out, "(its own)" + std::string(35 - 9, ' ') + "zookeeper") == 2);
    CHECK(locksim::testing::count_of(text.out, "10s" + std::string(35 - 3, ' ') + "redis") == 1);
    CHECK_THAT(text.out, Catch::Contains("(its own): design zookeeper sets fault_generators/0/mean_interval itself, so "
                                         "the values varied never reached it"));
    const auto json = run_locksim(command + " --format json");
    REQUIRE(json.exit_code == 0);
    const auto document = nlohmann::json::parse(json.out);
    for (const auto& point : document.at("points"))
        for (const auto& design : point.at("designs")) {
            if (design.at("name") == "zookeeper")
                CHECK(design.at("sets_itself") == nlohmann::json::array({"fault_generators/0/mean_interval"}));
            else
                CHECK_FALSE(design.contains("sets_itself"));
        }
    // A design whose patch merges into the field's object without setting it is not marked.
    const auto ttl = run_locksim("sweep scenarios/clock-chaos.json --seeds 2 --vary lock.ttl=10s,20s");
    REQUIRE(ttl.exit_code == 0);
    CHECK_THAT(ttl.out, !Catch::Contains("(its own)"));
}
