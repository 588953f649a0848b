// Which scenario library `list` and `check` read when given no path (cli/installed_files.hpp):
// the current folder's scenarios/ in a checkout, the installed library anywhere else, and
// --help says which.
#include "cli/installed_files.hpp"

#include <fstream>
#include <string>

#include "program_support.hpp"

using namespace locksim;
using namespace locksim::testing;

TEST_CASE("list with no path lists the checkout's scenarios folder when run in a checkout") {
    const auto listed = run_locksim("list --format json");
    CHECK(listed.exit_code == 0);
    CHECK(listed.out.find("\"file\": \"scenarios/gc-pause-40s.json\"") != std::string::npos);
    CHECK(listed.err.empty());
}

TEST_CASE("check with no path checks the scenarios folder of the folder it runs in") {
    const auto folder = fresh_directory("own_library");
    std::filesystem::create_directories(folder / "scenarios");
    std::filesystem::copy_file(
        std::filesystem::path(LOCKSIM_SOURCE_DIR) / "scenarios" / "examples" / "monthly-statements.json",
        folder / "scenarios" / "monthly-statements.json");
    const auto checked = run_locksim_in(folder, "check");
    CHECK(checked.exit_code == 0);
    CHECK(checked.out.find("PASS monthly-statements ") != std::string::npos);
    CHECK(checked.out.find("gc-pause-40s") == std::string::npos);
    CHECK(checked.err.empty());
    std::filesystem::remove_all(folder);
}

TEST_CASE("check and list with no path outside a checkout read the installed library and say so") {
    const auto folder = fresh_directory("no_library");
    const std::string said =
        "no PATH given and no scenarios/ here: reading the installed library, " + installed_scenario_library() + "\n";
    for (const char* command : {"check", "list"}) {
        const auto ran = run_locksim_in(folder, command);
        INFO(command);
        CHECK(ran.err.starts_with(said));
        // A build installed elsewhere finds its library, or says it is not there.
        if (!std::filesystem::is_directory(installed_scenario_library())) {
            CHECK(ran.exit_code == 2);
            // check prints it as an ERROR line of its report, list on stderr.
            CHECK((ran.out + ran.err).find(installed_scenario_library() + ": no such file or directory") !=
                  std::string::npos);
        }
    }
    std::filesystem::remove_all(folder);
}

TEST_CASE("the help of check and list names both libraries and when each is read") {
    for (const char* command : {"check", "list"}) {
        const auto help = run_locksim(std::string(command) + " --help");
        INFO(command);
        CHECK(help.exit_code == 0);
        CHECK(help.out.find("default: scenarios/ when the current folder has one, as a checkout does; otherwise the "
                            "installed library, " +
                            installed_scenario_library()) != std::string::npos);
    }
}

TEST_CASE("the installed files sit in the data and documentation folders the build was configured with") {
    CHECK(installed_scenario_library() == installed_data_dir() + "/scenarios");
    CHECK(installed_schema() == installed_data_dir() + "/scenario.schema.json");
    CHECK(installed_data_dir().ends_with("/share/locksim"));
    CHECK(installed_doc_dir().ends_with("/share/doc/locksim"));
}
