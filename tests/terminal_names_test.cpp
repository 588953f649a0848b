// The names of files that `check` and `list` find in a folder are not typed by the user:
// one may hold an escape sequence or a C1 control. No line locksim prints carries one
// raw, and a command it prints for a person to run again still names the file.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "checks/command_line.hpp"
#include "program_support.hpp"
#include "small_explore.hpp"

using namespace locksim;
using namespace locksim::testing;

namespace {

// What a terminal would act on: C0 controls but the line break, DEL, and C1 (U+0080 to
// U+009F, two bytes in UTF-8).
bool holds_terminal_controls(const std::string& text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if ((byte < 0x20 && byte != '\n') || byte == 0x7f) return true;
        if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) <= 0x9f) return true;
    }
    return false;
}

// What bash reads back from `quoted`.
std::string read_back_by_bash(const std::string& quoted) {
    const auto script = write_temp("read_back.sh", "printf %s " + quoted);
    FILE* pipe = popen(("bash '" + script + "'").c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    char buffer[256];
    while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
    pclose(pipe);
    return out;
}

}  // namespace

TEST_CASE("a word that a terminal would act on is quoted $'…' with those bytes escaped, and bash reads it back") {
    const std::string escape = "a\x1b[31mred.json";
    const std::string c1 =
        "b\xc2\x9b"
        "c's.json";
    const std::string not_utf8 = "d\xff\\e.json";
    CHECK(shell_quoted(escape) == "$'a\\x1b[31mred.json'");
    CHECK(shell_quoted(c1) == "$'b\\xc2\\x9bc\\'s.json'");
    CHECK(shell_quoted(not_utf8) == "$'d\\xff\\\\e.json'");
    for (const auto& word : {escape, c1, not_utf8, std::string("plain name.json"), std::string("it's.json")}) {
        CHECK_FALSE(holds_terminal_controls(shell_quoted(word)));
        CHECK(read_back_by_bash(shell_quoted(word)) == word);
    }
    CHECK(shell_quoted("scenarios/gc-pause-40s.json") == "scenarios/gc-pause-40s.json");
    CHECK(shell_quoted("it's.json") == "'it'\\''s.json'");
}

TEST_CASE("check and list of a folder whose files' names hold escape sequences print none of them raw") {
    const auto folder = fresh_directory("terminal_names");
    const std::string good = (folder / "a\x1b[31mred.json").string();
    const std::string bad = (folder / "z\x1b[2Jbad.json").string();
    std::ofstream(good) << flagship_with_small_explore().dump(2);
    std::filesystem::copy_file(std::filesystem::path(LOCKSIM_SOURCE_DIR) / "tests/bad_scenarios/design-empty.json",
                               bad);

    const auto checked = run_locksim("check '" + folder.string() + "'");
    CHECK(checked.exit_code == 2);
    CHECK_FALSE(holds_terminal_controls(checked.out + checked.err));
    CHECK(checked.out.find("ERROR " + folder.string() +
                           "/z\\x1b[2Jbad.json:11:14: /designs: expected at least one "
                           "design") != std::string::npos);

    const auto listed = run_locksim("list '" + folder.string() + "'");
    CHECK_FALSE(holds_terminal_controls(listed.out + listed.err));
    const auto command = listed.out.find("run one with: locksim run ");
    REQUIRE(command != std::string::npos);
    std::string quoted = listed.out.substr(command + std::string("run one with: locksim run ").size());
    quoted.erase(quoted.find('\n'));
    const std::string named = read_back_by_bash(quoted);
    CHECK((named == good || named == bad));
    std::filesystem::remove_all(folder);
}
