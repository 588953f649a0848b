#include "cli/kinds_command.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

#include "models/trace_kinds.hpp"

namespace locksim {
namespace {

// As `--format trace` writes the field: times and durations carry "_ns".
std::string written_name(const FieldSpec& field) {
    const bool nanoseconds = field.type == FieldType::duration || field.type == FieldType::instant;
    return fmt::format("{}{}", field.name, nanoseconds ? "_ns" : "");
}

std::string markdown(const std::vector<const KindSpec*>& kinds) {
    std::string out =
        "| kind | what happened | fields (in `--format trace`; optional ones in italics) |\n| --- | --- | --- |\n";
    for (const KindSpec* kind : kinds) {
        std::vector<std::string> fields;
        for (const auto& field : kind->fields) {
            const std::string name = fmt::format("`{}` ({})", written_name(field), type_name(field.type));
            fields.push_back(field.optional ? fmt::format("*{}*", name) : name);
        }
        out += fmt::format("| `{}` | {} | {} |\n", kind->name, kind->meaning, fmt::join(fields, ", "));
    }
    return out;
}

std::string text(const std::vector<const KindSpec*>& kinds) {
    std::string out;
    for (const KindSpec* kind : kinds) {
        out += fmt::format("{}: {}\n", kind->name, kind->meaning);
        for (const auto& field : kind->fields)
            out += fmt::format("  {:<16} {:<9} {}{}\n", field.name, type_name(field.type), field.meaning,
                               field.optional ? " (optional)" : "");
    }
    return out;
}

std::string json(const std::vector<const KindSpec*>& kinds) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const KindSpec* kind : kinds) {
        nlohmann::ordered_json fields = nlohmann::ordered_json::array();
        for (const auto& field : kind->fields)
            fields.push_back({{"name", field.name},
                              {"type", type_name(field.type)},
                              {"optional", field.optional},
                              {"meaning", field.meaning}});
        list.push_back({{"name", kind->name}, {"meaning", kind->meaning}, {"fields", std::move(fields)}});
    }
    return list.dump(2) + "\n";
}

}  // namespace

int kinds_command(const std::string& format) {
    const auto& kinds = all_trace_kinds();
    fmt::print("{}", format == "json" ? json(kinds) : format == "markdown" ? markdown(kinds) : text(kinds));
    return 0;
}

// `locksim kinds`: its options and their help on the program's command line.
Subcommand add_kinds_command(CLI::App& app) {
    const auto format = std::make_shared<std::string>("text");
    CLI::App* kinds = app.add_subcommand(
        "kinds", "List every kind of trace event with its fields and their types: what a fault's \"when\" may name");
    kinds->add_option("--format", *format, "text (default), markdown (a table) or json (for scripts)")
        ->check(CLI::IsMember({"text", "markdown", "json"}));
    kinds->footer("Example: locksim kinds\n         locksim kinds --format json");
    return Subcommand{.app = kinds, .run = [format] { return kinds_command(*format); }};
}

}  // namespace locksim
