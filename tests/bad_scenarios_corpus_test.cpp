// The bad-input corpus (tests/bad_scenarios/) loaded in this process, through the loader
// `locksim run` and `locksim check` use: every file is refused with a ScenarioError whose
// message is one short line that starts with the path. tests/bad_scenarios_test.sh checks
// the rest through the program (exit 2, stdout empty, the place tests/bad_scenarios/README.md names, check's
// ERROR line); this test is what the sanitizer build runs instead (scripts/sanitizers.sh),
// where starting the program 600 times costs minutes and reaches no other code.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "checks/metrics.hpp"
#include "scenarios/schema/scenario_loader.hpp"
#include "sim/text_chars.hpp"
#include "tests/program_support.hpp"

using namespace locksim;

TEST_CASE("every file of the bad-input corpus is refused in process with one line that starts with its path") {
    std::vector<std::string> files;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(LOCKSIM_SOURCE_DIR) + "/tests/bad_scenarios"))
        if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    REQUIRE(files.size() >= 300);
    // Two of generate_big.py's files cost nothing to write: 100000 '[' (under the size
    // limit, refused by the depth check), and a file just over the 1 MiB limit.
    files.push_back(testing::write_temp("size-deep-nesting-100000.json", std::string(100000, '[') + "\n"));
    files.push_back(testing::write_temp("size-over-1mib.json",
                                        "{\"description\": \"" + std::string((1 << 20) - 18, 'x') + "\"}\n"));

    for (const auto& file : files) {
        CAPTURE(file);
        std::string message;
        try {
            load_scenario_file(file, metric_names());
            FAIL_CHECK("loaded without an error");
            continue;
        } catch (const ScenarioError& error) {
            message = error.what();
        }
        CAPTURE(message);
        CHECK(message.starts_with(file + ":"));
        CHECK(message.size() <= 4096);
        // No control character (C0, DEL, C1), nothing that is not UTF-8: a value that holds
        // one is quoted with it as \xNN.
        CHECK(first_unshowable(message) == std::nullopt);
    }
    std::filesystem::remove(files[files.size() - 2]);
    std::filesystem::remove(files.back());
}
