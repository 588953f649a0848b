#pragma once
// The program's command line read back as data — its commands, their options, what each
// option takes — for what is generated from it: the man page (man_page.hpp) and the bash
// completion (bash_completion.hpp). Read from the same CLI11 objects that parse the line
// and print --help, so neither can drift from the program.
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace locksim {

struct OptionFacts {
    const CLI::Option* option = nullptr;
    std::vector<std::string> names;  // "-j", "--jobs"; a positional: its name, "FILE"
    std::string shown;               // as --help shows it after the names: " TEXT:{text,json}", " UINT REQUIRED"
    std::string description;         // as --help shows it
    bool positional = false;
    bool takes_value = false;          // false for a flag such as --help or --no-prune
    bool numeric = false;              // a whole number or a decimal: nothing to complete
    std::vector<std::string> choices;  // the only values it takes (--format), when it says so
};

struct CommandFacts {
    const CLI::App* app = nullptr;
    std::string name;
    std::string usage;  // "[OPTIONS] FILE", "[OPTIONS] [PATH...]"
    std::string description;
    std::string footer;
    std::vector<OptionFacts> options;      // in the order --help lists them
    std::vector<OptionFacts> positionals;  // FILE, PATH…: none for kinds and metrics
};

// Every option of `app` (its --help and --version too), named options first.
std::vector<OptionFacts> options_of(const CLI::App& app);

// The commands --help lists, in its order; hidden ones (man, bash-completion) are left out.
std::vector<CommandFacts> listed_commands(const CLI::App& program);

}  // namespace locksim
