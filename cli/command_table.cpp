#include "cli/command_table.hpp"

#include <CLI/CLI.hpp>

namespace locksim {
namespace {

std::vector<std::string> split_names(const std::string& names) {
    std::vector<std::string> split;
    std::size_t from = 0;
    for (std::size_t comma = names.find(','); comma != std::string::npos; comma = names.find(',', from)) {
        split.push_back(names.substr(from, comma - from));
        from = comma + 1;
    }
    split.push_back(names.substr(from));
    return split;
}

// "TEXT:{text,json}" -> {"text", "json"}: CLI::IsMember writes the set into the type's name.
std::vector<std::string> choices_in(const std::string& type_name) {
    const auto open = type_name.find(":{");
    const auto close = type_name.rfind('}');
    if (open == std::string::npos || close == std::string::npos || close < open) return {};
    return split_names(type_name.substr(open + 2, close - open - 2));
}

OptionFacts facts_of(const CLI::Option& option, const CLI::Formatter& formatter) {
    OptionFacts facts;
    facts.option = &option;
    facts.positional = !option.nonpositional();
    facts.names = split_names(formatter.make_option_name(&option, facts.positional));
    facts.shown = formatter.make_option_opts(&option);
    facts.description = option.get_description();
    facts.takes_value = option.get_expected_max() != 0;
    const std::string type = option.get_type_name();
    facts.numeric = facts.takes_value && type.substr(0, type.find(':')) != "TEXT";
    facts.choices = choices_in(type);
    return facts;
}

}  // namespace

std::vector<OptionFacts> options_of(const CLI::App& app) {
    const CLI::Formatter formatter;
    std::vector<OptionFacts> options;
    for (const CLI::Option* option : app.get_options())
        if (!option->get_group().empty() && option->nonpositional()) options.push_back(facts_of(*option, formatter));
    return options;
}

std::vector<CommandFacts> listed_commands(const CLI::App& program) {
    const CLI::Formatter formatter;
    std::vector<CommandFacts> commands;
    for (const CLI::App* app : program.get_subcommands([](const CLI::App* sub) { return !sub->get_group().empty(); })) {
        CommandFacts command{
            app, app->get_name(), "[OPTIONS]", app->get_description(), app->get_footer(), options_of(*app), {}};
        for (const CLI::Option* option : app->get_options())
            if (!option->get_group().empty() && !option->nonpositional()) {
                command.positionals.push_back(facts_of(*option, formatter));
                command.usage += " " + formatter.make_option_usage(option);
            }
        commands.push_back(std::move(command));
    }
    return commands;
}

}  // namespace locksim
