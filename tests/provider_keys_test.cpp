// Idempotency keys as providers keep them: a provider without key support charges every
// repeat, and one that forgets a key after its retention window charges a late repeat.
// gc-pause-40s's idempotent design repeats customer 42's charge 40 s after the first.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "tests/program_support.hpp"

namespace {

// gc-pause-40s with only its idempotent design, its provider as given.
nlohmann::json idempotent_run(const nlohmann::json& provider) {
    auto scenario = nlohmann::json::parse(
        locksim::testing::slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json"));
    scenario.erase("explore");
    auto design = scenario["designs"]["idempotent"];
    design.erase("expect");
    if (!provider.is_null()) design["provider"] = provider;
    scenario["designs"] = {{"idempotent", design}};
    const auto file = locksim::testing::write_temp("provider-keys.json", scenario.dump(2));
    const auto ran = locksim::testing::run_locksim("run " + file + " --format json");
    REQUIRE(ran.exit_code <= 1);  // 1: a double charge breaks the correctness lock's implied expectation
    return nlohmann::json::parse(ran.out).at("designs")[0].at("metrics");
}

}  // namespace

TEST_CASE("a provider that honours keys for ever replays the late repeat") {
    const auto metrics = idempotent_run(nullptr);
    CHECK(metrics.at("double_charges") == 0);
    CHECK(metrics.at("charges") == 3);
}

TEST_CASE("a provider without key support charges the repeat, key or not") {
    const auto metrics = idempotent_run({{"keys", "ignored"}});
    CHECK(metrics.at("double_charges") == 1);
    CHECK(metrics.at("charges") == 4);
}

TEST_CASE("a key kept for less than the repeat's delay is forgotten, and one kept longer is not") {
    // The repeat comes 40 s after the first charge (the pause's length).
    CHECK(idempotent_run({{"key_retention", "10s"}}).at("double_charges") == 1);
    CHECK(idempotent_run({{"key_retention", "24h"}}).at("double_charges") == 0);
    CHECK(idempotent_run({{"keys", "honoured"}, {"key_retention", "1m"}}).at("double_charges") == 0);
}

TEST_CASE("unusable provider settings are refused with the field and what to write") {
    const std::string base = locksim::testing::slurp(std::string(LOCKSIM_SOURCE_DIR) + "/scenarios/gc-pause-40s.json");
    auto scenario = nlohmann::json::parse(base);
    scenario["provider"] = {{"keys", "sometimes"}};
    const auto ran =
        locksim::testing::run_locksim("run " + locksim::testing::write_temp("keys.json", scenario.dump(2)));
    CHECK(ran.exit_code == 2);
    CHECK_THAT(ran.err, Catch::Contains("/provider/keys: unknown \"sometimes\"; expected \"honoured\""));
    scenario["provider"] = {{"key_retention", "0s"}};
    const auto zero =
        locksim::testing::run_locksim("run " + locksim::testing::write_temp("keys.json", scenario.dump(2)));
    CHECK(zero.exit_code == 2);
    CHECK_THAT(zero.err, Catch::Contains("/provider/key_retention: expected a retention above 0s"));
}
