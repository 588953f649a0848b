// The metric table (checks/metric_table.hpp): what the rest of the program derives from
// it. Its own rules (each Metric once, in order; names and violation bits unique) are
// static_asserts there.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <set>

#include "checks/exploration.hpp"
#include "checks/metric_words.hpp"
#include "checks/sweep_summary.hpp"
#include "tests/program_support.hpp"

using namespace locksim;
using namespace locksim::testing;

TEST_CASE("each violation has a bit of its own, whatever its place in the table") {
    std::set<std::uint32_t> bits;
    for (const Metric violation : violation_metrics()) {
        INFO(metric_name(violation));
        const std::uint32_t bit = violation_flag(violation);
        CHECK(std::has_single_bit(bit));
        CHECK(bits.insert(bit).second);
    }
    std::uint32_t every = 0;
    for (const std::uint32_t bit : bits) every |= bit;
    CHECK(violated_metrics(every) == violation_metrics());
    CHECK(violation_names(violation_flag(Metric::stale_writes_accepted)) ==
          std::vector<std::string>{"stale_writes_accepted"});
}

TEST_CASE("a flagged event is a violation exactly when its metric is one") {
    CHECK(FlaggedEvent{0, Metric::double_charges, ""}.violation());
    CHECK_FALSE(FlaggedEvent{0, Metric::stale_writes_rejected, ""}.violation());
    CHECK_FALSE(FlaggedEvent{0, Metric::tokens_reused, ""}.violation());
}

TEST_CASE("a metric's words take the scenario's word for its effect, and a heading its unit") {
    const Vocabulary emails{"user", "email", "email provider", "statement"};
    CHECK(metric_heading(Metric::double_charges) == "double charges");
    CHECK(metric_heading(Metric::double_charges, emails) == "double emails");
    CHECK(metric_heading(Metric::charges, emails) == "emails");
    CHECK(metric_counted(Metric::double_charges, 1, emails) == "1 double email");
    CHECK(metric_counted(Metric::stale_writes_accepted, 2) == "2 stale writes accepted");
    CHECK(metric_heading(Metric::duplicate_work_ms) == "duplicate work ms");
    CHECK(metric_one(Metric::duplicate_work_ms) == "duplicate work");
}

TEST_CASE("every name a run, a sweep or an exploration may expect is the table's or a total's own") {
    for (const auto& name : metric_names()) CHECK(find_metric(name) != nullptr);
    std::vector<std::string> swept;
    for (const auto& spec : metric_table)
        if (spec.swept) swept.emplace_back(spec.name);
    const auto sweep = total_names(sweep_totals());
    CHECK(std::vector<std::string>(sweep.end() - static_cast<std::ptrdiff_t>(swept.size()), sweep.end()) == swept);
    for (const auto& total : sweep_totals()) CHECK_FALSE(total.meaning.empty());
    for (const auto& total : explore_totals()) CHECK_FALSE(total.meaning.empty());
}

TEST_CASE("locksim metrics lists every metric of the table, and its schema lists name each") {
    const auto text = run_locksim("metrics");
    CHECK(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("stale_writes_accepted (count): ") && Catch::Contains("a violation"));
    const auto json = run_locksim("metrics --format json");
    REQUIRE(json.exit_code == 0);
    const auto listed = nlohmann::json::parse(json.out);
    REQUIRE(listed.size() == metric_count);
    CHECK(listed.at(0).at("name") == metric_table[0].name);
    const auto schema = run_locksim("metrics --format schema");
    REQUIRE(schema.exit_code == 0);
    const auto lists = nlohmann::ordered_json::parse(schema.out);
    std::vector<std::string> run_names;
    for (const auto& [name, property] : lists.at("/$defs/expect/properties").items()) run_names.push_back(name);
    CHECK(run_names == metric_names());
    CHECK(lists.at("/$defs/expect/properties").at("double_charges").at("$ref") == "#/$defs/doubleChargesExpectation");
}
