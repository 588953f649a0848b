// Outputs checked before any work (cli/output_paths.hpp): writable, of the right kind, and
// never one of the command's inputs.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/atomic_file.hpp"
#include "cli/output_paths.hpp"
#include "program_support.hpp"

namespace locksim {
namespace {

// The message check_outputs throws, or "" when every output is usable.
std::string output_refusal(const std::vector<OutputTarget>& outputs, const std::vector<std::string>& inputs) {
    try {
        check_outputs(outputs, inputs);
    } catch (const OutputError& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("an output that is an input is refused, however the path spells it") {
    const auto folder = testing::fresh_directory("outputs_inputs");
    const std::string input = (folder / "s.json").string();
    std::ofstream(input) << "{}";
    std::filesystem::create_symlink(input, folder / "link.json");
    std::filesystem::create_hard_link(input, folder / "hard.json");
    const std::string refusal =
        "is also an input of this command (" + input + "); locksim never writes over what it reads: give another file";
    for (const auto& spelling : {input, (folder / "." / "s.json").string(), (folder / "link.json").string(),
                                 (folder / "hard.json").string()}) {
        CAPTURE(spelling);
        CHECK(output_refusal({OutputTarget{"--output", spelling}}, {input}) == "--output " + spelling + ": " + refusal);
    }
    CHECK(output_refusal({OutputTarget{"--junit", (folder / "other.xml").string()}}, {input}).empty());
    std::filesystem::remove_all(folder);
}

TEST_CASE("an output file in a folder that does not exist, or that is a folder, is refused") {
    const auto folder = testing::fresh_directory("outputs_folders");
    const std::string missing = (folder / "no" / "x.json").string();
    CHECK(output_refusal({OutputTarget{"--output", missing}}, {}) ==
          "--output " + missing + ": the folder " + (folder / "no").string() + " does not exist; create it first");
    CHECK(output_refusal({OutputTarget{"--out", folder.string()}}, {}) ==
          "--out " + folder.string() + ": is a directory; give the name of a file to write");
    std::filesystem::remove_all(folder);
}

TEST_CASE("a folder of pages may be made, but not where a file stands") {
    const auto folder = testing::fresh_directory("outputs_report_folder");
    CHECK(output_refusal({OutputTarget{"--report", (folder / "a" / "b").string(), true}}, {}).empty());
    CHECK_FALSE(std::filesystem::exists(folder / "a"));  // checking makes nothing
    std::ofstream(folder / "file") << "x";
    CHECK(output_refusal({OutputTarget{"--report", (folder / "file").string(), true}}, {}) ==
          "--report " + (folder / "file").string() +
              ": is a file, not a folder; give a folder to write the pages into");
    CHECK(output_refusal({OutputTarget{"--report", (folder / "file" / "below").string(), true}}, {}) ==
          "--report " + (folder / "file" / "below").string() + ": " + (folder / "file").string() + " is not a folder");
    std::filesystem::remove_all(folder);
}

TEST_CASE("two outputs that are one file are refused") {
    const auto folder = testing::fresh_directory("outputs_twice");
    const std::string result = (folder / "out.json").string();
    CHECK(output_refusal(
              {OutputTarget{"--output", result}, OutputTarget{"--junit", (folder / "." / "out.json").string()}}, {}) ==
          "--junit " + (folder / "." / "out.json").string() + ": is also --output " + result +
              "; give each output its own file");
    std::filesystem::remove_all(folder);
}

}  // namespace locksim
