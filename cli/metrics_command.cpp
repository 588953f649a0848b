#include "cli/metrics_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <string_view>
#include <vector>

#include "checks/metric_table.hpp"
#include "checks/metric_words.hpp"
#include "cli/metrics_schema.hpp"

namespace locksim {
namespace {

std::string_view unit_name(MetricUnit unit) {
    return unit == MetricUnit::milliseconds ? "ms" : "count";
}

std::string_view role(const MetricSpec& spec) {
    if (spec.violation()) return "violation";
    if (spec.protection) return "protection";
    return "measure";
}

// What else a metric takes part in, in a few words each.
std::vector<std::string> traits(const MetricSpec& spec) {
    std::vector<std::string> out;
    if (spec.violation()) out.emplace_back("a violation");
    if (spec.protection) out.emplace_back("a protection at work");
    if (spec.zero_for_correctness) out.emplace_back("a correctness lock expects 0");
    if (spec.efficiency_cost) out.emplace_back("an efficiency lock's cost, not its failure");
    if (spec.swept) out.emplace_back("sweeps total it");
    if (spec.safety) out.emplace_back("a fault that moves it mattered");
    if (spec.detail == MetricDetail::customers) out.emplace_back("\"expect\" may name the customers");
    if (spec.detail == MetricDetail::holders) out.emplace_back("\"expect\" may name two holders (\"between\")");
    return out;
}

std::string metrics_text() {
    std::string out;
    for (const auto& spec : metric_table) {
        out += fmt::format("{} ({}): {}\n", spec.name, unit_name(spec.unit), spec.meaning);
        out += fmt::format("  in words: {}; {}\n", metric_one(spec.metric), metric_many(spec.metric));
        if (const auto more = traits(spec); !more.empty()) out += fmt::format("  {}\n", fmt::join(more, "; "));
    }
    return out;
}

std::string metrics_markdown() {
    std::string out =
        "| metric | unit | what it counts | violation | sweeps total it |\n| --- | --- | --- | --- | --- |\n";
    for (const auto& spec : metric_table)
        out += fmt::format("| `{}` | {} | {} | {} | {} |\n", spec.name, unit_name(spec.unit), spec.meaning,
                           spec.violation() ? "yes" : "", spec.swept ? "yes" : "");
    return out;
}

std::string metrics_json() {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const auto& spec : metric_table)
        list.push_back({{"name", spec.name},
                        {"meaning", spec.meaning},
                        {"unit", unit_name(spec.unit)},
                        {"role", role(spec)},
                        {"swept", spec.swept},
                        {"safety", spec.safety},
                        {"zero_for_correctness", spec.zero_for_correctness},
                        {"words", {{"one", metric_one(spec.metric)}, {"many", metric_many(spec.metric)}}}});
    return list.dump(2) + "\n";
}

}  // namespace

int metrics_command(const std::string& format) {
    if (format == "schema")
        fmt::print("{}\n", schema_metric_lists().dump(2));
    else
        fmt::print("{}", format == "json"       ? metrics_json()
                         : format == "markdown" ? metrics_markdown()
                                                : metrics_text());
    return 0;
}

// `locksim metrics`: its options and their help on the program's command line.
Subcommand add_metrics_command(CLI::App& app) {
    const auto format = std::make_shared<std::string>("text");
    CLI::App* metrics = app.add_subcommand(
        "metrics", "List every metric the checkers compute, with what it counts: what a design's \"expect\" may name");
    metrics
        ->add_option("--format", *format,
                     "text (default), markdown (a table), json (for scripts) or schema (the JSON Schema's lists)")
        ->check(CLI::IsMember({"text", "markdown", "json", "schema"}));
    metrics->footer("Example: locksim metrics\n         locksim metrics --format json");
    return Subcommand{.app = metrics, .run = [format] { return metrics_command(*format); }};
}

}  // namespace locksim
