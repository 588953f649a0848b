// --shard: a written-out index counts from 1, and each scheduler's index is read with the
// base that scheduler uses, so no array numbering can run the wrong block silently.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "cli/shard_choice.hpp"

using namespace locksim;

namespace {

EnvironmentLookup environment(std::map<std::string, std::string> variables) {
    return [variables](const std::string& name) -> std::optional<std::string> {
        if (auto it = variables.find(name); it != variables.end()) return it->second;
        return std::nullopt;
    };
}

ShardChoice chosen(const std::string& text, std::map<std::string, std::string> variables = {}) {
    auto parsed = parse_shard(text, environment(std::move(variables)));
    if (const auto* error = std::get_if<std::string>(&parsed)) FAIL(*error);
    return std::get<ShardChoice>(parsed);
}

std::string refusal(const std::string& text, std::map<std::string, std::string> variables = {}) {
    auto parsed = parse_shard(text, environment(std::move(variables)));
    REQUIRE(std::holds_alternative<std::string>(parsed));
    return std::get<std::string>(parsed);
}

}  // namespace

TEST_CASE("a written-out shard counts from 1") {
    CHECK(chosen("3/8").index == 3);
    CHECK(chosen("3/8").count == 8);
    CHECK(chosen("1/1").index == 1);
    CHECK(chosen("100000/100000").index == 100000);
    CHECK(chosen("from1:3/8").index == 3);
}

TEST_CASE("a shard index counted from 0 is written with from0") {
    CHECK(chosen("from0:0/8").index == 1);
    CHECK(chosen("from0:7/8").index == 8);
    CHECK_THAT(refusal("from0:8/8"), Catch::Contains("outside 0 to 7"));
}

TEST_CASE("shard 0 of a 1-based count is refused with the 0-based spelling") {
    CHECK_THAT(refusal("0/8"), Catch::Contains("from0:0/8"));
}

TEST_CASE("a Slurm array task's shard is its array index, counted from 1") {
    const auto shard =
        chosen("slurm/4", {{"SLURM_ARRAY_TASK_ID", "3"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_MAX", "4"}});
    CHECK(shard.index == 3);
    CHECK(shard.count == 4);
    CHECK(shard.source == "SLURM_ARRAY_TASK_ID=3");
    // A rerun of one missing shard is an array of one: still shard 3 of 4.
    CHECK(chosen("slurm/4", {{"SLURM_ARRAY_TASK_ID", "3"},
                             {"SLURM_ARRAY_TASK_MIN", "3"},
                             {"SLURM_ARRAY_TASK_MAX", "3"},
                             {"SLURM_ARRAY_TASK_COUNT", "1"}})
              .index == 3);
}

TEST_CASE("a Slurm array numbered from 0 is refused in every task, not only the task with index 0") {
    const std::map<std::string, std::string> zero_based{
        {"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MIN", "0"}, {"SLURM_ARRAY_TASK_MAX", "3"}};
    CHECK_THAT(refusal("slurm/4", zero_based), Catch::Contains("sbatch --array=1-4"));
    CHECK_THAT(refusal("slurm/4", {{"SLURM_ARRAY_TASK_ID", "5"}}), Catch::Contains("outside 1 to 4"));
    CHECK_THAT(refusal("slurm/4", {{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_MAX", "8"}}),
               Catch::Contains("--array=1-4"));
}

TEST_CASE("slurm outside an array task says so") {
    CHECK_THAT(refusal("slurm/4"), Catch::Contains("SLURM_ARRAY_TASK_ID is not set"));
    CHECK_THAT(refusal("slurm/4", {{"SLURM_ARRAY_TASK_ID", "x"}}), Catch::Contains("not a whole number"));
}

TEST_CASE("a Kubernetes Indexed Job's completion index counts from 0") {
    CHECK(chosen("k8s/4", {{"JOB_COMPLETION_INDEX", "0"}}).index == 1);
    CHECK(chosen("k8s/4", {{"JOB_COMPLETION_INDEX", "3"}}).index == 4);
    CHECK_THAT(refusal("k8s/4", {{"JOB_COMPLETION_INDEX", "4"}}), Catch::Contains("outside 0 to 3"));
    CHECK_THAT(refusal("k8s/4"), Catch::Contains("JOB_COMPLETION_INDEX is not set"));
}

TEST_CASE("malformed shards are refused with the forms that work") {
    for (const char* text : {"", "3", "/8", "3/", "3/0", "3/100001", "-1/8", "3/8/9", "a/8", "3.0/8", "1e3/8", "slurm",
                             "from0:/8", "from2:1/8", "9/8"}) {
        INFO(text);
        CHECK_FALSE(refusal(text).empty());
    }
}
