#pragma once
// The man page, locksim(1), written from the program's own command line: every command
// with its description, options and footer as --help prints them, the exit codes, the
// installed files and the examples of every footer. The package installs what
// `locksim man` prints, so the page cannot drift from the program it describes.
#include <string>

namespace CLI {
class App;
}

namespace locksim {

// The page in roff (man(7)), for `man -l -` or gzip into man1/locksim.1.gz.
std::string render_man_page(const CLI::App& program);

}  // namespace locksim
