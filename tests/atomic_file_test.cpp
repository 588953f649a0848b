// Files written whole or not at all, never through a link (cli/atomic_file.hpp).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli/atomic_file.hpp"
#include "program_support.hpp"

namespace locksim {
namespace {

// Every path below `folder`, relative to it, links not followed.
std::set<std::string> tree_of(const std::filesystem::path& folder) {
    std::set<std::string> paths;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(folder))
        paths.insert(entry.path().lexically_relative(folder).string());
    return paths;
}

// The message write_files_atomically throws, or "" when it wrote.
std::string write_refusal(const std::string& folder, const std::vector<OutputFile>& files) {
    try {
        write_files_atomically(folder, files, "--report");
    } catch (const OutputError& error) {
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("a report's files are written all or none: a folder in the way of the last leaves none of the others") {
    const auto folder = testing::fresh_directory("atomic_all_or_none");
    std::filesystem::create_directory(folder / "page.html");  // in the way of the last file
    const std::vector<OutputFile> files{
        {"page-steps/d1.html", "one"}, {"page-steps/d2.html", "two"}, {"page.html", "the page"}};
    CHECK(write_refusal(folder.string(), files) ==
          "--report " + (folder / "page.html").string() + ": is a directory; it is in the way of the file");
    // The steps folder it made and the pages staged in it are gone again.
    CHECK(tree_of(folder) == std::set<std::string>{"page.html"});

    std::filesystem::remove(folder / "page.html");
    CHECK(write_refusal((folder / "new" / "site").string(), files).empty());
    CHECK(testing::slurp(folder / "new" / "site" / "page.html") == "the page");
    CHECK(tree_of(folder / "new" / "site") ==
          std::set<std::string>{"page-steps", "page-steps/d1.html", "page-steps/d2.html", "page.html"});
    std::filesystem::remove_all(folder);
}

TEST_CASE("a report folder made for a write that fails is removed again") {
    const auto folder = testing::fresh_directory("atomic_made_folder");
    const auto site = folder / "a" / "b";
    const std::vector<OutputFile> files{{"x.html", "x"}, {"..", "not a file name"}};
    CHECK_THAT(write_refusal(site.string(), files), Catch::EndsWith(": is not a file name"));
    CHECK_FALSE(std::filesystem::exists(folder / "a"));
    std::filesystem::remove_all(folder);
}

TEST_CASE("a symbolic link planted in a report folder is refused or replaced, never followed") {
    const auto folder = testing::fresh_directory("atomic_links");
    const auto outside = folder / "outside";
    const auto site = folder / "site";
    std::filesystem::create_directories(outside);
    std::filesystem::create_directories(site);
    std::ofstream(outside / "d1.html") << "keep me";
    std::ofstream(outside / "page.html") << "keep me too";

    SECTION("a link in place of a folder of pages") {
        std::filesystem::create_directory_symlink(outside, site / "page-steps");
        CHECK(write_refusal(site.string(), {{"page-steps/d1.html", "overwritten"}, {"page.html", "page"}}) ==
              "--report " + (site / "page-steps").string() +
                  ": is a symbolic link or not a folder; pages go only into real folders, never through a link");
        CHECK(tree_of(site) == std::set<std::string>{"page-steps"});
    }
    SECTION("a link in place of a page") {
        std::filesystem::create_symlink(outside / "page.html", site / "page.html");
        CHECK(write_refusal(site.string(), {{"page.html", "page"}}).empty());
        CHECK_FALSE(std::filesystem::is_symlink(site / "page.html"));
        CHECK(testing::slurp(site / "page.html") == "page");
    }
    SECTION("a link in place of a single output file") {
        std::filesystem::create_symlink(outside / "page.html", site / "out.json");
        write_file_atomically((site / "out.json").string(), "result");
        CHECK_FALSE(std::filesystem::is_symlink(site / "out.json"));
        CHECK(testing::slurp(site / "out.json") == "result");
    }
    CHECK(testing::slurp(outside / "d1.html") == "keep me");
    CHECK(testing::slurp(outside / "page.html") == "keep me too");
    CHECK(tree_of(outside) == std::set<std::string>{"d1.html", "page.html"});
    std::filesystem::remove_all(folder);
}

}  // namespace locksim
