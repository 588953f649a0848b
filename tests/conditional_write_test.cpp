// A conditional write at the effect's own store (examples/compactor-if-match.json): the
// object store refuses a rewrite made on a version someone has written since, whichever
// holder is stale and whichever writes first, where a claim row fenced with the lock's
// token lets one of the two orders through.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "tests/program_support.hpp"

using locksim::testing::run_locksim;

namespace {

const std::string compactor = "scenarios/examples/compactor-if-match.json";

// The design's events of `kind` about tenant `tenant`, from the trace output.
std::vector<nlohmann::json> events_about(const std::string& design, const std::string& kind, int tenant) {
    const auto ran = run_locksim("run " + compactor + " --design " + design + " --format trace");
    REQUIRE(ran.exit_code == 0);
    const auto trace = nlohmann::json::parse(ran.out);
    std::vector<nlohmann::json> found;
    for (const auto& event : trace.at("designs")[0].at("events"))
        if (event.at("kind") == kind && event.at("fields").value("customer", -1) == tenant) found.push_back(event);
    return found;
}

}  // namespace

TEST_CASE("stale first: the claim row lets the newer holder rewrite again, If-Match refuses its write") {
    // compactor-1, cut off from etcd, rewrites tenant 8 at 32 s, after its lease ended and
    // after compactor-2 read tenant 8 as not yet rewritten.
    const auto fenced = events_about("claim-row-fence", "provider.charged", 8);
    REQUIRE(fenced.size() == 2);
    CHECK(fenced[0].at("fields").at("by") == "compactor-1");
    CHECK(fenced[1].at("fields").at("by") == "compactor-2");

    const auto rewritten = events_about("if-match", "provider.charged", 8);
    REQUIRE(rewritten.size() == 1);
    CHECK(rewritten[0].at("fields").at("by") == "compactor-1");
    CHECK(rewritten[0].at("fields").at("if_version") == 0);
    const auto refused = events_about("if-match", "provider.precondition_failed", 8);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].at("fields").at("by") == "compactor-2");
    CHECK(refused[0].at("fields").at("if_version") == 0);
    CHECK(refused[0].at("fields").at("version") == 1);
    CHECK(refused[0].at("fields").at("changed_by") == "compactor-1");
    const auto read = events_about("if-match", "provider.read", 8);
    REQUIRE(read.size() == 2);  // each compactor read version 0 before its work
    CHECK(read[1].at("fields").at("by") == "compactor-2");
    CHECK(read[1].at("t_ns").get<std::int64_t>() < rewritten[0].at("t_ns").get<std::int64_t>());
}

TEST_CASE("stale last: a holder stopped after its claim rewrites again, one stopped after its read is refused") {
    const auto fenced = events_about("claim-row-fence-stopped", "provider.charged", 3);
    REQUIRE(fenced.size() == 2);
    CHECK(fenced[0].at("fields").at("by") == "compactor-2");
    CHECK(fenced[1].at("fields").at("by") == "compactor-1");  // the claim was made before the stop

    const auto rewritten = events_about("if-match-stopped", "provider.charged", 3);
    REQUIRE(rewritten.size() == 1);
    CHECK(rewritten[0].at("fields").at("by") == "compactor-2");
    const auto refused = events_about("if-match-stopped", "provider.precondition_failed", 3);
    REQUIRE(refused.size() == 1);
    CHECK(refused[0].at("fields").at("by") == "compactor-1");
    CHECK(refused[0].at("fields").at("changed_by") == "compactor-2");
}

TEST_CASE("the example's four designs pass, every tenant rewritten, and the refusal is told in its words") {
    const auto checked = run_locksim("check " + compactor);
    CHECK(checked.exit_code == 0);
    const auto json = nlohmann::json::parse(run_locksim("run " + compactor + " --format json").out);
    for (const auto& design : json.at("designs")) {
        INFO(design.at("name"));
        CHECK(design.at("metrics").at("items_not_done") == 0);
        CHECK(design.at("metrics").at("charges") == 8 + design.at("metrics").at("double_charges").get<int>());
    }
    const auto text = run_locksim("run " + compactor + " --design if-match-stopped");
    CHECK_THAT(text.out, Catch::Contains("refuses to rewrite tenant 3 on version 0 (If-Match): conditional write "
                                         "refused: index of tenant 3 changed since compactor-1 read it (version 1, "
                                         "by compactor-2)"));
    CHECK_THAT(text.out, Catch::Contains("skips tenant 3: its index changed since this server read it"));
}

TEST_CASE("a conditional write needs no lock: two servers without one rewrite each tenant once") {
    // Both start at once, read each tenant at the same version and write 4 s later: the
    // first write to land stands, the other is refused, tenant after tenant.
    const auto file = locksim::testing::write_temp("compactor-no-lock.json", R"({
      "name": "no-lock", "description": "two compactors, no lock, If-Match", "seed": 1, "horizon": "5m",
      "vocabulary": {"item": "tenant", "effect": "rewrite", "effected": "rewritten", "provider": "object store",
                     "record": "index"},
      "servers": ["compactor-1", "compactor-2"], "network": {"delay": "1ms"}, "lock": {"store": "none"},
      "job": {"name": "compaction", "at": "00:00", "customers": [1, 2, 3, 4], "period": "2026-12-07",
              "work_per_customer": "4s"},
      "designs": {"unconditional": {"expect": {"double_charges": 4}},
                  "if-match": {"conditional_write": true, "expect": {"double_charges": 0}}}})");
    const auto ran = run_locksim("run " + file + " --format json");
    REQUIRE(ran.exit_code == 0);
    const auto json = nlohmann::json::parse(ran.out);
    const auto& metrics = json.at("designs")[1].at("metrics");
    CHECK(metrics.at("items_not_done") == 0);
    CHECK(metrics.at("charges") == 4);
    CHECK(metrics.at("conditional_writes_refused") == 4);
}
