#include "cli/bash_completion.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <vector>

#include "cli/command_table.hpp"

namespace locksim {
namespace {

// What bash offers after the option: its own values, the file's designs, nothing for a
// number, files for any other text (a report folder, a JUnit file, a shard).
std::string value_completion(const OptionFacts& option) {
    if (!option.choices.empty()) return fmt::format("_locksim_words \"{}\"", fmt::join(option.choices, " "));
    if (option.names.back() == "--design") {
        // run --design takes "all" too, and its help says so.
        const bool all = option.description.find("\"all\"") != std::string::npos;
        // A design's name comes from the file: it goes through no expansion (compgen -W would
        // run a `$(...)` in it), and is offered quoted.
        return fmt::format("_locksim_lines < <(_locksim_designs{})", all ? "; echo all" : "");
    }
    if (option.numeric) return "COMPREPLY=()";
    return "_locksim_files";
}

std::string names_of(const std::vector<OptionFacts>& options) {
    std::vector<std::string> names;
    for (const OptionFacts& option : options) names.insert(names.end(), option.names.begin(), option.names.end());
    return fmt::format("{}", fmt::join(names, " "));
}

}  // namespace

std::string render_bash_completion(const CLI::App& program) {
    const std::vector<CommandFacts> commands = listed_commands(program);
    std::vector<std::string> command_names;
    for (const CommandFacts& command : commands) command_names.push_back(command.name);

    std::string values, options, files;
    for (const CommandFacts& command : commands) {
        for (const OptionFacts& option : command.options) {
            if (!option.takes_value) continue;
            std::vector<std::string> cases;
            for (const std::string& name : option.names) cases.push_back(fmt::format("\"{} {}\"", command.name, name));
            values += fmt::format("        {}) {}; return 0 ;;\n", fmt::join(cases, " | "), value_completion(option));
        }
        options += fmt::format("        {}) _locksim_words \"{}\" ;;\n", command.name, names_of(command.options));
        if (!command.positionals.empty()) files += (files.empty() ? "" : " | ") + command.name;
    }

    return fmt::format(
        R"bash(# bash completion for locksim                                   -*- shell-script -*-
# Written by `locksim bash-completion` from the program's own command line: do not edit.
# Completes commands, options, an option's values, the designs of the scenario file on the
# line after --design, and scenario files (*.json) and folders.

# Sets COMPREPLY to the words of $1 that start with the word being completed.
_locksim_words() {{
    mapfile -t COMPREPLY < <(compgen -W "$1" -- "${{COMP_WORDS[COMP_CWORD]}}")
}}

# Sets COMPREPLY to the lines of standard input that start with the word being completed,
# each quoted as bash would read it back: a word from a scenario file is never expanded or
# evaluated, here or when the line runs.
_locksim_lines() {{
    local line word=${{COMP_WORDS[COMP_CWORD]}}
    COMPREPLY=()
    while IFS= read -r line; do
        [[ -n $line && $line == "$word"* ]] && COMPREPLY+=("$(printf '%q' "$line")")
    done
}}

# Any file or folder.
_locksim_files() {{
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "${{COMP_WORDS[COMP_CWORD]}}")
}}

# Scenario files and the folders that may hold them.
_locksim_scenarios() {{
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -d -- "${{COMP_WORDS[COMP_CWORD]}}"; compgen -f -X '!*.json' -- "${{COMP_WORDS[COMP_CWORD]}}")
}}

# The designs of the first scenario file on the line, as `locksim list --format json` names them.
_locksim_designs() {{
    local word file=""
    for word in "${{COMP_WORDS[@]:2}}"; do
        if [[ $word == *.json && -f $word ]]; then file=$word; break; fi
    done
    [[ -n $file ]] || return 0
    "${{COMP_WORDS[0]}}" list --format json --color never "$file" 2>/dev/null |
        sed -n '/^ *"designs": \[$/,/^ *\]/s/^ *"\([^"]*\)",\{{0,1\}}$/\1/p'
}}

_locksim() {{
    local command="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${{COMP_WORDS[i]}} in
            {commands}) command=${{COMP_WORDS[i]}}; break ;;
        esac
    done
    if [[ -z $command ]]; then
        _locksim_words "{command_words} {root_options}"
        return 0
    fi
    # The value of the option just before the word being completed.
    case "$command ${{COMP_WORDS[COMP_CWORD-1]}}" in
{values}    esac
    if [[ ${{COMP_WORDS[COMP_CWORD]}} == -* ]]; then
        case $command in
{options}        esac
        return 0
    fi
    case $command in
        {files}) _locksim_scenarios ;;
    esac
    return 0
}}
complete -F _locksim locksim
)bash",
        fmt::arg("commands", fmt::format("{}", fmt::join(command_names, "|"))),
        fmt::arg("command_words", fmt::format("{}", fmt::join(command_names, " "))),
        fmt::arg("root_options", names_of(options_of(program))), fmt::arg("values", values),
        fmt::arg("options", options), fmt::arg("files", files));
}

}  // namespace locksim
