#include "cli/man_page.hpp"

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <string_view>
#include <vector>

#include "cli/build_info.hpp"
#include "cli/command_table.hpp"
#include "cli/installed_files.hpp"
#include "cli/program_text.hpp"

namespace locksim {
namespace {

// Text as roff prints it, not as it reads it: a backslash is groff's escape, a hyphen
// becomes a minus (options and file names are typed as written), a line may not start
// with a control character, and a character beyond ASCII is named by its code point (the
// page renders the same under any locale).
std::string roff(std::string_view text) {
    std::string out;
    bool line_start = true;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (line_start && (byte == '.' || byte == '\'')) out += "\\&";
        line_start = byte == '\n';
        if (byte == '\\') {
            out += "\\e";
        } else if (byte == '-') {
            out += "\\-";
        } else if (byte < 0x80) {
            out += static_cast<char>(byte);
        } else {
            // UTF-8: the lead byte says how many continuation bytes follow.
            const int length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : 2;
            std::uint32_t code = byte & (0x7f >> length);
            for (int k = 1; k < length && i + 1 < text.size(); ++k) code = (code << 6) | (text[++i] & 0x3f);
            out += fmt::format("\\[u{:04X}]", code);
        }
    }
    return out;
}

std::vector<std::string> lines_in(std::string_view text) {
    std::vector<std::string> lines;
    std::size_t from = 0;
    while (from <= text.size()) {
        const std::size_t end = std::min(text.find('\n', from), text.size());
        lines.emplace_back(text.substr(from, end - from));
        from = end + 1;
    }
    while (!lines.empty() && lines.back().empty()) lines.pop_back();
    return lines;
}

// "Study:   locksim sweep FILE …" -> "Study"; "" when the line has no label (a capitalised
// word or two and a colon).
std::string label_of(const std::string& line) {
    const auto colon = line.find(": ");
    if (colon == std::string::npos || colon > 12 || !std::isupper(static_cast<unsigned char>(line[0]))) return "";
    for (std::size_t k = 0; k < colon; ++k)
        if (!(std::isalpha(static_cast<unsigned char>(line[k])) || line[k] == ' ')) return "";
    return line.substr(0, colon);
}

std::string trimmed(const std::string& line) {
    const auto first = line.find_first_not_of(' ');
    return first == std::string::npos ? "" : line.substr(first);
}

// A command line shown in a footer: after a label ("Example:", "CI gate:") or under one,
// indented; the rest of a footer is prose.
std::string command_in(const std::string& line) {
    const std::string label = label_of(line);
    const std::string rest = trimmed(label.empty() ? line : line.substr(label.size() + 1));
    return rest.starts_with("locksim ") ? rest : "";
}

// Help text as roff: lines that start with a space or show a command keep their layout
// (tables of values, examples); the others are prose, filled by the reader's width.
std::string roff_block(std::string_view text) {
    std::string out;
    bool verbatim = false;
    for (const std::string& line : lines_in(text)) {
        const bool keep = line.starts_with(" ") || !label_of(line).empty() || !command_in(line).empty();
        if (keep != verbatim) out += keep ? ".nf\n" : ".fi\n";
        verbatim = keep;
        out += line.empty() ? ".sp\n" : roff(keep ? line : trimmed(line)) + "\n";
    }
    if (verbatim) out += ".fi\n";
    return out;
}

std::string option_entry(const OptionFacts& option) {
    std::vector<std::string> names;
    for (const std::string& name : option.names)
        names.push_back(fmt::format("\\f{}{}\\fR", option.positional ? 'I' : 'B', roff(name)));
    return fmt::format(".TP\n{}{}\n{}", fmt::join(names, ", "), roff(option.shown), roff_block(option.description));
}

std::string synopsis(const std::vector<CommandFacts>& commands) {
    std::string out = ".SH SYNOPSIS\n";
    for (const CommandFacts& command : commands)
        out += fmt::format(".B locksim {}\n{}\n.br\n", command.name, roff(command.usage));
    return out + ".B locksim \\-\\-help\n.br\n.B locksim \\-\\-version\n";
}

std::string commands_section(const std::vector<CommandFacts>& commands) {
    std::string out = ".SH COMMANDS\n";
    for (const CommandFacts& command : commands) {
        out += fmt::format(".SS \"locksim {} {}\"\n{}", command.name, roff(command.usage),
                           roff_block(command.description));
        for (const OptionFacts& option : command.positionals) out += option_entry(option);
        for (const OptionFacts& option : command.options) out += option_entry(option);
        out += ".PP\n" + roff_block(command.footer);
    }
    return out;
}

std::string exit_status_section() {
    std::string out = ".SH EXIT STATUS\n";
    for (const ExitCode& exit : exit_codes) out += fmt::format(".TP\n.B {}\n{}\n", exit.code, roff(exit.meaning));
    return out;
}

std::string files_section() {
    return fmt::format(
        ".SH FILES\n"
        ".TP\n.I scenarios/\n"
        "The scenario library of the current folder, as in a checkout: what \\fBlist\\fR and \\fBcheck\\fR read when "
        "given no \\fIPATH\\fR and the current folder has one.\n"
        ".TP\n.I {}/\n"
        "The installed scenario library, examples included: what \\fBlist\\fR and \\fBcheck\\fR read when given no "
        "\\fIPATH\\fR anywhere else.\n"
        ".TP\n.I {}\n"
        "The JSON Schema of scenario files, for editors.\n"
        ".TP\n.I {}/\n"
        "The manual: README.md, and docs/ with a page per subject.\n",
        roff(installed_scenario_library()), roff(installed_schema()), roff(installed_doc_dir()));
}

std::string examples_section(const std::vector<CommandFacts>& commands) {
    std::string out = fmt::format(
        ".SH EXAMPLES\nEvery footer's examples. They name \\fIscenarios/\\fR as a checkout has it; the installed "
        "library, \\fI{}/\\fR, holds the same files.\n.PP\n.nf\n",
        roff(installed_scenario_library()));
    std::vector<std::string> shown_already;
    for (const CommandFacts& command : commands) {
        std::string label;
        for (const std::string& line : lines_in(command.footer)) {
            if (!label_of(line).empty()) label = label_of(line);
            // The command alone, without a remark set off by spaces after it.
            const std::string shown = command_in(line).substr(0, command_in(line).find("   "));
            if (shown.empty() || std::find(shown_already.begin(), shown_already.end(), shown) != shown_already.end())
                continue;
            shown_already.push_back(shown);
            const bool plain = label.starts_with("Example");
            if (!plain) out += roff("# " + label + "\n");
            out += roff(shown) + "\n";
            if (!plain) label = "Example";
        }
    }
    return out + ".fi\n";
}

}  // namespace

std::string render_man_page(const CLI::App& program) {
    const std::vector<CommandFacts> commands = listed_commands(program);
    std::string page = fmt::format(
        ".\\\" Written by `locksim man` from the program's own help: do not edit.\n"
        ".TH LOCKSIM 1 \"\" \"locksim {} (commit {})\" \"User Commands\"\n"
        ".SH NAME\nlocksim \\- {}\n",
        roff(locksim_version), roff(build_commit), roff(program_summary));
    page += synopsis(commands);
    page += ".SH DESCRIPTION\n" + roff_block(program_description) +
            ".PP\nEach command's options follow; \\fBlocksim\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR prints the same.\n";
    page += ".SH OPTIONS\n";
    for (const OptionFacts& option : options_of(program)) page += option_entry(option);
    page += commands_section(commands);
    page += exit_status_section();
    page += files_section();
    page += examples_section(commands);
    page += fmt::format(".SH SEE ALSO\n{}/README.md, {}/docs/command\\-line.md\n", roff(installed_doc_dir()),
                        roff(installed_doc_dir()));
    return page;
}

}  // namespace locksim
