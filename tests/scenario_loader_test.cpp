// Reading scenario files: every mistake is one line naming file, line:column, the field
// as a JSON pointer, and what was expected.
#include <catch2/catch.hpp>

#include "tests/scenario_support.hpp"

#include <string>

#include "checks/metrics.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

// A valid scenario in which one line can be swapped for a broken one.
std::string scenario_text(const std::string& faults = R"([{ "pause": "server-1", "at": "6s", "for": "40s" }])",
                          const std::string& designs = R"({ "unfenced": { "expect": { "double_charges": 1 } } })",
                          const std::string& lock = R"({ "store": "redis", "key": "lock:renewals", "ttl": "30s" })") {
    return R"({
  "name": "test",
  "description": "a test world",
  "seed": 7,
  "servers": ["server-1", "server-2"],
  "network": { "delay": "1ms" },
  "lock": )" +
           lock + R"(,
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42], "period": "2026-10", "work_per_customer": "4s" },
  "faults": )" +
           faults + R"(,
  "designs": )" +
           designs + R"(
})";
}

}  // namespace

TEST_CASE("a valid scenario resolves every unit and keeps designs in file order") {
    const auto scenario = parse_scenario(scenario_text(R"([{ "pause": "server-1", "at": "6s", "for": "40s" }])",
                                                       R"({ "zeta": {}, "alpha": { "lock": { "ttl": "5s" } } })"),
                                         "test.json", metric_names());
    REQUIRE(scenario.designs.size() == 2);
    CHECK(scenario.designs[0].name == "zeta");
    CHECK(scenario.designs[1].name == "alpha");
    CHECK(scenario.seed == 7);
    CHECK(scenario.designs[0].world.lock.ttl == 30_s);
    CHECK(scenario.designs[1].world.lock.ttl == 5_s);
    CHECK(scenario.designs[1].world.lock.key == "lock:renewals");  // the rest of the base lock stays
    const auto& pause = std::get<PauseFault>(scenario.designs[0].world.faults.at(0));
    CHECK(pause.node == "server-1");
    CHECK(pause.at == Instant{} + 6_s);
    CHECK(pause.length == 40_s);
    CHECK(pause.cause == "gc");
}

TEST_CASE("broken JSON is reported with the line and column of the mistake") {
    const std::string text = "{\n  \"name\": \"x\"\n  \"seed\": 1\n}";
    CHECK(error_of(text).starts_with("test.json:3:3: not valid JSON:"));
}

TEST_CASE("an unknown field names its pointer and the fields that are allowed") {
    const auto error = error_of(
        scenario_text(R"([])", R"({ "d": {} })", R"({ "store": "redis", "key": "k", "ttl": "30s", "tll": "5s" })"));
    CHECK(error.find("test.json:7:") == 0);
    CHECK(error.find("/lock/tll: unknown field \"tll\"; expected one of: store, key, ttl") != std::string::npos);
}

TEST_CASE("a duration in unknown units says what a duration looks like") {
    const auto error = error_of(scenario_text(R"([{ "pause": "server-1", "at": "6s", "for": "40 parsecs" }])"));
    CHECK(error ==
          "test.json:9:56: /faults/0/for: expected a duration such as \"40s\", \"250ms\" or \"5m\" "
          "(units ns, us, ms, s, m, h, d), got \"40 parsecs\"");
}

TEST_CASE("a fault on a node that does not exist lists the nodes there are") {
    const auto error = error_of(scenario_text(R"([{ "pause": "server-9", "at": "6s", "for": "40s" }])"));
    CHECK(error ==
          "test.json:9:25: /faults/0/pause: unknown node \"server-9\"; the nodes are server-1, server-2, "
          "lock-store, payment-provider, billing-db");
}

TEST_CASE("a value set by a design is reported at the design's pointer") {
    const auto error = error_of(scenario_text(R"([])", R"({ "fast": { "lock": { "ttl": "soon" } } })"));
    CHECK(error.find("/designs/fast/lock/ttl: expected a duration") != std::string::npos);
}

TEST_CASE("fencing on a store without tokens is refused with the reason") {
    const auto error = error_of(scenario_text(R"([])", R"({ "fenced": { "fencing": true } })"));
    CHECK(error.find("/designs/fenced/fencing: fencing needs a lock that hands out tokens") != std::string::npos);
}

TEST_CASE("an expectation on an unknown metric lists the known ones") {
    const auto error = error_of(scenario_text(R"([])", R"({ "d": { "expect": { "double_charge": 1 } } })"));
    CHECK(error.find("/designs/d/expect/double_charge: unknown metric \"double_charge\"; expected one of: "
                     "double_charges,") != std::string::npos);
}

TEST_CASE("a field given twice in one object is refused rather than silently overwritten") {
    const auto error = error_of(scenario_text(R"([])", R"({ "d": {}, "d": {} })"));
    CHECK(error.find("/designs/d: this field appears twice") != std::string::npos);
}

TEST_CASE("wrong types say what was expected and what was found") {
    CHECK(error_of(scenario_text(R"({})")).find("/faults: expected an array, got an object") != std::string::npos);
    CHECK(error_of(scenario_text(R"([{ "pause": 3, "at": "6s", "for": "40s" }])"))
              .find("/faults/0/pause: expected a string, got the number 3") != std::string::npos);
}

TEST_CASE("negative durations and an empty design list are refused") {
    CHECK(error_of(scenario_text(R"([{ "pause": "server-1", "at": "-6s", "for": "40s" }])"))
              .find("/faults/0/at: a duration cannot be negative") != std::string::npos);
    CHECK(error_of(scenario_text(R"([])", R"({})")).find("/designs: expected at least one design") !=
          std::string::npos);
}

TEST_CASE("a recurring job whose runs a week apart pass 2^63 ns is refused, never wrapped into a few runs") {
    // 19,999 × 168h wrapped to a start before the horizon: 2 of 20,000 runs happened, exit 0.
    const auto weekly = [](int runs) {
        return error_of(std::string(R"({"name": "t", "description": "d", "seed": 1, "horizon": "168h",
            "servers": ["server-1"], "network": {"delay": "1ms"},
            "lock": {"store": "redis", "key": "lock:renewals", "ttl": "30s"},
            "job": {"name": "renewals", "at": "00:00", "customers": [41], "period": "2026-10",
                    "work_per_customer": "1s", "every": "168h", "runs": )") +
                        std::to_string(runs) + R"(}, "designs": {"d": {}}})");
    };
    CHECK_THAT(weekly(20000), Catch::EndsWith(": /job/runs: the last run would start 19999 × 168h after the first, "
                                              "past 2^63 ns (292 years) and the horizon (168h); raise \"horizon\" or "
                                              "lower \"runs\""));
    // Once a wrapped duration in this message.
    CHECK_THAT(weekly(100000), Catch::Contains("the last run would start 99999 × 168h after the first, past 2^63 ns"));
    // A product that fits: the start it gives.
    CHECK_THAT(weekly(2), Catch::EndsWith(": /job/runs: the last run would start at 168h, at or after the horizon "
                                          "(168h); raise \"horizon\" or lower \"runs\""));
}

TEST_CASE("absurdly deep nesting is refused before anything walks it") {
    const std::string deep = std::string(100, '[') + std::string(100, ']');
    CHECK(error_of(deep).find("nested more than 64 levels deep") != std::string::npos);
}

TEST_CASE("an unterminated string is reported on one short line") {
    const std::string text = "{\n  \"description\": \"" + std::string(500, 'x');
    const auto error = error_of(text);
    CHECK(error.starts_with("test.json:2:"));
    CHECK(error.find("missing closing quote") != std::string::npos);
    CHECK(error.size() < 200);
}

TEST_CASE("a base value that only breaks in one design's world names that design") {
    const auto error = error_of(scenario_text(R"([{ "pause": "server-1", "at": "6s", "for": "40s" }])",
                                              R"({ "ok": {}, "renamed": { "servers": ["a", "b"] } })"));
    CHECK(error.find("/faults/0/pause: unknown node \"server-1\"") != std::string::npos);
    CHECK(error.ends_with("(in design \"renamed\")"));
}

TEST_CASE("text with control characters is refused, so nothing can write escapes to a terminal") {
    const auto error = error_of(
        scenario_text(R"([])", R"({ "d": {} })", R"({ "store": "redis", "key": "lock\u001b[31m", "ttl": "30s" })"));
    CHECK(error.find("/lock/key: expected text without control characters") != std::string::npos);
}

TEST_CASE("durations above a week, a zero retry delay and option of another store are refused") {
    CHECK(error_of(scenario_text(R"([{ "pause": "server-1", "at": "6s", "for": "9223372036854775807ns" }])"))
              .find("/faults/0/for: expected at most 168h") != std::string::npos);
    CHECK(error_of(scenario_text(
                       R"([])", R"({ "d": {} })",
                       R"({ "store": "redis", "key": "k", "ttl": "30s", "retry": { "min": "0s", "max": "1ns" } })"))
              .find("/lock/retry/min: expected at least 1ms") != std::string::npos);
    CHECK(error_of(
              scenario_text(R"([])", R"({ "d": {} })", R"({ "store": "redis", "key": "k", "ttl": "30s", "nodes": 5 })"))
              .find("/lock/nodes: \"nodes\" is an option of redlock only") != std::string::npos);
}

TEST_CASE("a study block reads its fields and values as --vary gives them, and tries each value in the file") {
    std::string text = scenario_text();
    text.insert(
        text.rfind('}'),
        R"(, "study": {"seeds": 50, "start": 3, "vary": {"lock.ttl": ["5s", "30s"], "network/delay": ["1ms", {"uniform": ["1ms", "3ms"]}]}})");
    const auto scenario = parse_scenario(text, "test.json", metric_names());
    REQUIRE(scenario.study);
    CHECK(scenario.study->seeds.first == 3);
    CHECK(scenario.study->seeds.count == 50);
    REQUIRE(scenario.study->fields.size() == 2);
    const auto& ttl = scenario.study->fields[0];
    CHECK(ttl.path == "lock.ttl");
    CHECK(ttl.pointer == "/lock/ttl");
    CHECK(ttl.written == std::vector<std::string>{"5s", "30s"});
    CHECK(scenario.study->fields[1].pointer == "/network/delay");
    CHECK(scenario.study->fields[1].written == std::vector<std::string>{"1ms", R"({"uniform":["1ms","3ms"]})"});
    // The file's own value is untouched: the study's values are for the course's study page.
    CHECK(scenario.designs[0].world.lock.ttl == 30_s);

    std::string bad = scenario_text();
    bad.insert(bad.rfind('}'), R"(, "study": {"seeds": 50, "vary": {"lock.ttl": ["5s", "-1s"]}})");
    CHECK(error_of(bad).starts_with("test.json"));
    CHECK_THAT(error_of(bad), Catch::Contains(": /study/vary/lock.ttl/1: lock.ttl=-1s is not a value the file can "
                                              "take: /lock/ttl: "));
}
