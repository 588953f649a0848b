// scenarios/schema/fault_schema.cpp and network_schema.cpp: a fault, a generator or a
// link that cannot be run is refused with one line naming its JSON pointer.
#include <catch2/catch.hpp>

#include "tests/scenario_support.hpp"

#include <string>

#include "checks/metrics.hpp"
#include "scenarios/schema/scenario_loader.hpp"

using namespace locksim;
using namespace locksim::testing;
using namespace locksim::time_literals;

namespace {

// A valid scenario but for the parts under test. The nodes are server-1, server-2,
// lock-store, payment-provider and billing-db.
std::string scenario_with_faults(const std::string& faults, const std::string& network = R"({ "delay": "1ms" })",
                                 const std::string& generators = "[]") {
    return R"({
  "name": "test",
  "description": "a test world",
  "seed": 7,
  "horizon": "1h",
  "servers": ["server-1", "server-2"],
  "network": )" +
           network + R"(,
  "lock": { "store": "redis", "key": "lock:renewals", "ttl": "30s" },
  "job": { "name": "renewals", "at": "00:00", "customers": [41, 42], "period": "2026-10", "work_per_customer": "4s" },
  "faults": )" +
           faults + R"(,
  "fault_generators": )" +
           generators + R"(,
  "designs": { "d": {} }
})";
}

std::string with_generator(const std::string& generator) {
    return scenario_with_faults("[]", R"({ "delay": "1ms" })", "[" + generator + "]");
}

}  // namespace

TEST_CASE("the faults and generators used below are valid as they stand") {
    CHECK(
        error_of(scenario_with_faults(
            R"([
      { "partition": [["server-1"], ["lock-store"]], "at": "5s", "heal_after": "60s" },
      { "delay_spike": ["server-1", "lock-store"], "at": "5s", "for": "10s", "extra": "2s" },
      { "pause": "server-1", "for": "10s", "when": { "event": "job.preparing", "customer": 42 } }
    ])",
            R"({ "delay": "1ms", "loss": "1/100", "duplicate": "0/1" })",
            R"([{ "pause": "servers", "mean_interval": "360ms", "for": { "pareto": { "min": "1ms", "alpha": 1, "max": "1s" } } },
                                     { "pause": "servers", "mean_interval": "1m", "for": { "lognormal": { "median": "1s", "sigma": 1, "max": "1s" } } }])")) ==
        "no error");
}

TEST_CASE("a partition with a node on both sides is refused") {
    const auto error = error_of(scenario_with_faults(
        R"([{ "partition": [["server-1", "server-2"], ["lock-store", "server-1"]], "at": "5s" }])"));
    CHECK(says(error, "/faults/0/partition: node server-1 is on both sides"));
}

TEST_CASE("a partition naming an unknown node names the place in the list") {
    const auto error =
        error_of(scenario_with_faults(R"([{ "partition": [["server-1"], ["lock-store", "redis-9"]], "at": "5s" }])"));
    CHECK(
        says(error, "/faults/0/partition/1/1: unknown node \"redis-9\"; the nodes are server-1, server-2, lock-store"));
}

TEST_CASE("a delay spike from a node to itself is refused") {
    const auto error = error_of(scenario_with_faults(
        R"([{ "delay_spike": ["lock-store", "lock-store"], "at": "5s", "for": "10s", "extra": "2s" }])"));
    CHECK(says(error, "/faults/0/delay_spike/1: expected two different nodes"));
}

TEST_CASE("odds above certainty or not a fraction at all are refused") {
    CHECK(says(error_of(scenario_with_faults("[]", R"({ "delay": "1ms", "loss": "2/1" })")),
               "/network/loss: expected odds such as \"1/100\" (at most 1/1), got \"2/1\""));
    CHECK(says(error_of(scenario_with_faults("[]", R"({ "delay": "1ms", "duplicate": "abc" })")),
               "/network/duplicate: expected odds such as \"1/100\" (at most 1/1), got \"abc\""));
    CHECK(says(error_of(scenario_with_faults(
                   "[]", R"({ "delay": "1ms", "links": [{ "between": ["server-1", "lock-store"], "loss": "1/0" }] })")),
               "/network/links/0/loss: expected odds such as \"1/100\""));
    CHECK(says(error_of(scenario_with_faults("[]", R"({ "delay": "1ms", "loss": "1/2 of them" })")),
               "/network/loss: expected odds such as \"1/100\""));
}

TEST_CASE("a fault with both a time and an event is refused at its time") {
    const auto error = error_of(scenario_with_faults(
        R"([{ "pause": "server-1", "at": "6s", "for": "40s", "when": { "event": "job.preparing", "customer": 42 } }])"));
    CHECK(says(error, "/faults/0/at: a fault has \"at\" (a time) or \"when\" (an event), not both"));
}

TEST_CASE("a generator that would draw more than 10000 faults per node is refused") {
    // The horizon is 1h: one every 360ms is 10000 exactly, one every 359ms is 10027.
    CHECK(error_of(with_generator(R"({ "pause": "servers", "mean_interval": "360ms", "for": "1s" })")) == "no error");
    const auto error = error_of(with_generator(R"({ "pause": "servers", "mean_interval": "359ms", "for": "1s" })"));
    CHECK(says(error,
               "/fault_generators/0/mean_interval: expected a mean interval that gives at most 10000 faults per "
               "node in the window"));
    CHECK(says(error_of(with_generator(R"({ "crash": ["lock-store"], "mean_interval": "0s" })")),
               "/fault_generators/0/mean_interval: expected a mean interval that gives at most 10000"));
}

TEST_CASE("a pareto alpha of 0 is refused") {
    const auto error = error_of(with_generator(
        R"({ "pause": "servers", "mean_interval": "1m", "for": { "pareto": { "min": "500ms", "alpha": 0, "max": "2m" } } })"));
    CHECK(says(error, "/fault_generators/0/for/pareto/alpha: expected a number above 0 and at most 10"));
}

TEST_CASE("a lognormal whose max is below its median is refused") {
    const auto error = error_of(with_generator(
        R"({ "pause": "servers", "mean_interval": "1m", "for": { "lognormal": { "median": "2s", "sigma": 1, "max": "1s" } } })"));
    CHECK(says(error, "/fault_generators/0/for/lognormal/max: expected max to be at least the median"));
}

TEST_CASE("a generator whose window starts at the horizon says so rather than asking for a field that is optional") {
    // "until" defaults to the horizon, so leaving it out is allowed; what is wrong here is "from".
    const auto error =
        error_of(with_generator(R"({ "pause": "servers", "mean_interval": "1m", "for": "1s", "from": "1h" })"));
    CHECK(error != "no error");
    CHECK(error.find("missing required field") == std::string::npos);
    CHECK(error.find("/fault_generators/0") != std::string::npos);
}

TEST_CASE("a trigger's fields are read as their kind declares them") {
    // An integer field given as text would never match: refused, not left to fail silently.
    CHECK_THAT(
        error_of(scenario_with_faults(
            R"([{ "pause": "server-1", "for": "10s", "when": { "event": "job.preparing", "customer": "42" } }])")),
        Catch::Contains("/faults/0/when/customer"));
    // A node field must name a node.
    CHECK_THAT(error_of(scenario_with_faults(
                   R"([{ "crash": "lock-store", "when": { "event": "lock.granted", "holder": "server-9" } }])")),
               Catch::Contains("/faults/0/when/holder"));
    // A duration field is a duration.
    CHECK(error_of(scenario_with_faults(
              R"([{ "crash": "lock-store", "when": { "event": "node.paused", "for": "40s" } }])")) == "no error");
    CHECK_THAT(
        error_of(scenario_with_faults(R"([{ "crash": "lock-store", "when": { "event": "node.paused", "for": 40 } }])")),
        Catch::Contains("/faults/0/when/for"));
}

TEST_CASE("a link generator takes one link or a list of links, each once, and at_once a true or false") {
    const auto spikes = [](const std::string& links, const std::string& more = "") {
        return error_of(with_generator(R"({ "delay_spike": )" + links +
                                       R"(, "mean_interval": "1m", "for": "1s", "extra": "2s")" + more + " }"));
    };
    CHECK(spikes(R"(["server-1", "lock-store"])") == "no error");
    CHECK(spikes(R"([["server-1", "lock-store"], ["server-2", "lock-store"]])", R"(, "at_once": true)") == "no error");
    CHECK(spikes(R"([[{"role": "holder"}, "lock-store"], ["server-2", "payment-provider"]])") == "no error");
    CHECK(says(spikes(R"([["server-1", "lock-store"], ["server-1", "lock-store"]])"),
               "/fault_generators/0/delay_spike/1: expected each link once"));
    CHECK(says(spikes(R"([["server-1", "lock-store"], ["server-2", "server-2"]])"),
               "/fault_generators/0/delay_spike/1/1: expected two different nodes"));
    CHECK(says(spikes(R"([["server-1", "lock-store"], ["server-2"]])"),
               "/fault_generators/0/delay_spike/1: expected [from, to]"));
    CHECK(says(spikes(R"(["server-1", "lock-store"])", R"(, "at_once": "yes")"), "/fault_generators/0/at_once:"));
    // A placed fault strikes one link: a list of links is for generators.
    CHECK(says(error_of(scenario_with_faults(
                   R"([{ "delay_spike": [["server-1", "lock-store"]], "at": "5s", "for": "1s", "extra": "2s" }])")),
               "/faults/0/delay_spike: expected one link [from, to]; a list of links is for a generator"));
    CHECK(says(error_of(scenario_with_faults(R"([{ "pause": "server-1", "at": "5s", "for": "1s", "at_once": true }])")),
               "/faults/0/at_once: unknown field \"at_once\""));
}
