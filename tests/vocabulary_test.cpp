// models/vocabulary.hpp: a scenario's own words for its items, its effect, its provider and
// its table, with the plural and the past by the English rules unless written, and its own
// names for the service nodes. They reach the messages' own text, not only the reports.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "models/trace_kinds.hpp"
#include "models/vocabulary.hpp"
#include "tests/scenario_support.hpp"
#include "tests/support.hpp"

using namespace locksim;
using locksim::testing::design_named;
using locksim::testing::error_of;

namespace {

// One sender and a key per item, in the words of a ledger export; `extra` adds top-level fields.
std::string ledger_scenario(const std::string& vocabulary, const std::string& extra = "",
                            const std::string& links = "[]") {
    return R"({
  "name": "ledger", "description": "One exporter sends two batches to a bank.",
  "seed": 1, "horizon": "10m",
  "vocabulary": )" +
           vocabulary + R"(,)" + extra + R"(
  "servers": ["exporter-1"],
  "network": { "delay": "1ms", "links": )" +
           links + R"( },
  "lock": { "store": "redis", "key": "export", "ttl": "30s" },
  "job": { "name": "export", "at": "00:00", "period": "2026-12", "customers": [1, 2], "work_per_customer": "1s" },
  "designs": { "keyed": { "idempotency_key": "batch-{item}-{period}" } }
})";
}

std::vector<std::string> message_labels(const Trace& trace) {
    std::vector<std::string> labels;
    for (const auto* event : events_of(trace, trace_kind::message_sent.name)) labels.emplace_back(event->text("label"));
    return labels;
}

bool has_label(const std::vector<std::string>& labels, const std::string& label) {
    return std::find(labels.begin(), labels.end(), label) != labels.end();
}

}  // namespace

TEST_CASE("the plural and the past follow the English rules, and a written form wins") {
    CHECK(Vocabulary::plural_of("batch") == "batches");
    CHECK(Vocabulary::plural_of("box") == "boxes");
    CHECK(Vocabulary::plural_of("bus") == "buses");
    CHECK(Vocabulary::plural_of("wish") == "wishes");
    CHECK(Vocabulary::plural_of("reply") == "replies");
    CHECK(Vocabulary::plural_of("key") == "keys");  // a vowel before the y
    CHECK(Vocabulary::plural_of("customer") == "customers");

    Vocabulary words;
    CHECK(words.effected() == "charged");
    words.effect = "email";
    CHECK(words.effected() == "emailed");
    words.effect = "copy";
    CHECK(words.effected() == "copied");
    words.effect = "obey";
    CHECK(words.effected() == "obeyed");
    words.effect = "transfer";
    CHECK(words.effected() == "transfered");  // the rules cannot hear the stress: write it
    words.effected_written = "transferred";
    CHECK(words.effected() == "transferred");
    words.item = "person";
    words.items_written = "people";
    CHECK(words.items() == "people");
}

TEST_CASE("the table is the renewals job's for its own item, named for the items otherwise, or as written") {
    Vocabulary words;
    CHECK(words.table() == "renewals");
    words.item = "batch";
    CHECK(words.table() == "batches");
    words.table_written = "ledger_batches";
    CHECK(words.table() == "ledger_batches");
}

TEST_CASE("the messages carry the scenario's words: the request, the reply and every statement") {
    const Scenario scenario =
        parse_scenario(ledger_scenario(R"({ "item": "batch", "effect": "transfer", "effected": "transferred",
                             "provider": "partner bank" })"),
                       "ledger.json", metric_names());
    const auto run = design_named(run_scenario(scenario, scenario.seed), "keyed");
    const std::vector<std::string> labels = message_labels(run.trace);
    CHECK(has_label(labels, "transfer batch 1 (Idempotency-Key: batch-1-2026-12)"));
    CHECK(has_label(labels, "transferred (transfer 1)"));
    CHECK(has_label(labels, "SELECT status FROM batches WHERE batch=2 AND period='2026-12'"));
    CHECK(has_label(labels, "UPDATE batches SET status='transferred' WHERE batch=2 AND period='2026-12'"));
    for (const auto& label : labels) {
        INFO(label);
        CHECK(label.find("customer") == std::string::npos);
        CHECK(label.find("charge") == std::string::npos);
        CHECK(label.find("renewals") == std::string::npos);
    }
}

TEST_CASE("a word with spaces or quotes becomes a SQL name that cannot break its statement") {
    const Scenario scenario = parse_scenario(ledger_scenario(R"({ "item": "ledger batch", "table": "it's" })"),
                                             "ledger.json", metric_names());
    const auto run = design_named(run_scenario(scenario, scenario.seed), "keyed");
    CHECK(has_label(message_labels(run.trace), "SELECT status FROM it_s WHERE ledger_batch=1 AND period='2026-12'"));
}

TEST_CASE("the service nodes take the scenario's names, in links and in the trace") {
    const Scenario scenario =
        parse_scenario(ledger_scenario(R"({ "item": "batch" })", R"(
  "nodes": { "provider": "partner-bank", "database": "ledger-db" },)",
                                       R"([{ "between": ["exporter-1", "partner-bank"], "delay": "40ms" }])"),
                       "ledger.json", metric_names());
    const auto run = design_named(run_scenario(scenario, scenario.seed), "keyed");
    const auto& names = run.trace.node_names();
    CHECK(std::find(names.begin(), names.end(), "partner-bank") != names.end());
    CHECK(std::find(names.begin(), names.end(), "ledger-db") != names.end());
    CHECK(std::find(names.begin(), names.end(), "payment-provider") == names.end());
    const auto charged = events_of(run.trace, trace_kind::provider_charged.name);
    REQUIRE(charged.size() == 2);
    CHECK(run.trace.node_name(charged.front()->node) == "partner-bank");
    // The link's 40 ms holds: the request left at the send and arrived 40 ms later.
    const auto sent = events_of(run.trace, trace_kind::message_sent.name);
    const auto to_bank = std::find_if(sent.begin(), sent.end(), [&](const TraceEvent* event) {
        return run.trace.node_name(event->node_ref("to")) == "partner-bank";
    });
    REQUIRE(to_bank != sent.end());
    CHECK(((*to_bank)->instant("deliver_at") - (*to_bank)->at).ns == 40'000'000);
}

TEST_CASE("service node names are checked like server names and may not collide") {
    const std::string words = R"({ "item": "batch" })";
    CHECK_THAT(error_of(ledger_scenario(words, R"( "nodes": { "provider": "bank", "database": "bank" },)")),
               Catch::Contains("/nodes/database") && Catch::Contains("other than the provider's"));
    CHECK_THAT(error_of(ledger_scenario(words, R"( "nodes": { "provider": "world" },)")),
               Catch::Contains("/nodes/provider") && Catch::Contains("reserved"));
    CHECK_THAT(error_of(ledger_scenario(words, R"( "nodes": { "provider": "Bank" },)")),
               Catch::Contains("/nodes/provider") && Catch::Contains("lowercase letters"));
    CHECK_THAT(error_of(ledger_scenario(words, R"( "nodes": { "bank": "bank" },)")), Catch::Contains("/nodes"));
    CHECK_THAT(error_of(ledger_scenario(words, R"( "nodes": { "provider": "exporter-1" },)")),
               Catch::Contains("/servers/0") && Catch::Contains("reserved"));
    // The old name is no node once renamed: a link to it is refused, not silently unused.
    CHECK_THAT(error_of(ledger_scenario(words, R"( "nodes": { "provider": "partner-bank" },)",
                                        R"([{ "between": ["exporter-1", "payment-provider"], "delay": "40ms" }])")),
               Catch::Contains("payment-provider"));
}
