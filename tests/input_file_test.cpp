// The one reader of every input file (scenarios/schema/input_file.hpp): regular files only,
// opened without blocking, read up to a limit and no further, without NUL bytes.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "program_support.hpp"
#include "scenario_support.hpp"
#include "scenarios/schema/input_file.hpp"

namespace locksim {
namespace {

constexpr InputLimit ten_bytes{10, "10 bytes", "a test file is short"};

// The error read_input_file throws for `path`, or a note that it threw none.
InputFileError input_refusal(const std::string& path, const InputLimit& limit = ten_bytes) {
    try {
        read_input_file(path, limit);
    } catch (const InputFileError& error) {
        return error;
    }
    return InputFileError(InputProblem::unreadable, "(read without a refusal)");
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("an input file is read whole up to its limit, and a byte more is refused without reading it all") {
    const auto folder = testing::fresh_directory("input_file_limit");
    write_bytes(folder / "ten.txt", "0123456789");
    CHECK(read_input_file((folder / "ten.txt").string(), ten_bytes) == "0123456789");
    write_bytes(folder / "empty.txt", "");
    CHECK(read_input_file((folder / "empty.txt").string(), ten_bytes).empty());
    write_bytes(folder / "eleven.txt", "0123456789a");
    const InputFileError error = input_refusal((folder / "eleven.txt").string());
    CHECK(error.problem == InputProblem::too_big);
    CHECK(std::string(error.what()) ==
          "the file is 11 bytes; a test file is short, and locksim reads at most 10 (10 bytes)");
    CHECK(input_error_line("eleven.txt", error) ==
          "eleven.txt: the file is 11 bytes; a test file is short, and locksim reads at most 10 (10 bytes)");
    std::filesystem::remove_all(folder);
}

TEST_CASE("a FIFO, a device and a directory are refused at once, never read") {
    const auto folder = testing::fresh_directory("input_file_kinds");
    const auto fifo = folder / "f.json";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // Without O_NONBLOCK the open itself would wait for a writer forever.
    const InputFileError pipe = input_refusal(fifo.string());
    CHECK(pipe.problem == InputProblem::not_regular);
    CHECK(std::string(pipe.what()) ==
          "is a FIFO (a named pipe), not a regular file; locksim reads only regular files (a device or a pipe "
          "may never end)");
    const InputFileError zero = input_refusal("/dev/zero", InputLimit{1ull << 40, "1 TiB", "big"});
    CHECK(zero.problem == InputProblem::not_regular);
    CHECK(std::string(zero.what()).starts_with("is a character device, not a regular file"));
    CHECK(input_refusal(folder.string()).problem == InputProblem::directory);
    const InputFileError missing = input_refusal((folder / "nothing.json").string());
    CHECK(missing.problem == InputProblem::unreadable);
    CHECK(std::string(missing.what()) == "cannot open the file: No such file or directory");
    std::filesystem::remove_all(folder);
}

TEST_CASE("a NUL byte anywhere in an input file is refused at its line and column") {
    const auto folder = testing::fresh_directory("input_file_nul");
    const auto file = folder / "after.json";
    // A whole document, then a NUL: a parser reading a C string would stop there and
    // accept the file, whatever follows.
    write_bytes(file, std::string("{\"a\": 1}\n  \0{\"b\"", 16));
    const InputFileError error = input_refusal(file.string(), InputLimit{100, "100 bytes", "short"});
    CHECK(error.problem == InputProblem::nul_byte);
    REQUIRE(error.at.has_value());
    CHECK(*error.at == TextPosition{2, 3});
    CHECK(input_error_line("after.json", error) ==
          "after.json:2:3: a NUL byte, which no text file holds; whatever follows it would go unread");
    std::filesystem::remove_all(folder);
}

TEST_CASE("a checked folder's link to a file outside it is named and never read") {
    const auto folder = testing::fresh_directory("checked_folder");
    const auto outside = testing::fresh_directory("outside_folder");
    std::filesystem::copy_file(testing::scenario_path("consul-lock-delay.json"), folder / "good.json");
    // A file that is no scenario, whose words an error would quote were it read.
    std::ofstream(outside / "secret.json") << "{\"name\": \"top secret words\"\n";
    std::filesystem::create_symlink(outside / "secret.json", folder / "leak.json");
    // A link that stays inside the folder is the folder's own file.
    std::filesystem::create_symlink("good.json", folder / "same.json");
    const auto ran = testing::run_locksim("check '" + folder.string() + "'");
    CHECK(ran.exit_code == 2);
    CHECK(ran.err.find("top secret") == std::string::npos);
    CHECK(ran.out.find("top secret") == std::string::npos);
    CHECK_THAT(ran.out + ran.err,
               Catch::Contains((folder / "leak.json").string() + ": a symbolic link to a file outside " +
                               folder.string() + " (" + std::filesystem::canonical(outside / "secret.json").string() +
                               "); locksim reads only what the folder holds: name that file itself"));
    // good.json and same.json: the scenario's designs checked twice.
    std::size_t passed = 0;
    for (std::size_t at = ran.out.find("PASS consul-lock-delay lock-delay\n"); at != std::string::npos;
         at = ran.out.find("PASS consul-lock-delay lock-delay\n", at + 1))
        ++passed;
    CHECK(passed == 2);
    std::filesystem::remove_all(folder);
    std::filesystem::remove_all(outside);
}

}  // namespace locksim
