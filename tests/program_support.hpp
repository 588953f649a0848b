#pragma once
// What the tests that run the locksim program, or search its output, share.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace locksim::testing {

struct ProgramRun {
    int exit_code = -1;
    std::string out;
    std::string err;
};

inline std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Runs build/locksim with `arguments` (a shell fragment) from `folder`, with `environment`
// set (colour off by default).
inline ProgramRun run_locksim_in(const std::filesystem::path& folder, const std::string& arguments,
                                 const std::string& environment = "NO_COLOR=") {
    // One file per test process: CTest runs test cases in parallel processes.
    const auto err_path =
        std::filesystem::temp_directory_path() / ("locksim_test_stderr_" + std::to_string(getpid()) + ".txt");
    const std::string command = "cd '" + folder.string() + "' && env " + environment + " '" + LOCKSIM_BINARY + "' " +
                                arguments + " 2>'" + err_path.string() + "'";
    ProgramRun ran;
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    char buffer[4096];
    while (std::size_t n = fread(buffer, 1, sizeof buffer, pipe)) ran.out.append(buffer, n);
    const int status = pclose(pipe);
    ran.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    ran.err = slurp(err_path);
    std::filesystem::remove(err_path);
    return ran;
}

// Runs build/locksim with `arguments` from the source directory, as run_locksim_in.
inline ProgramRun run_locksim(const std::string& arguments, const std::string& environment = "NO_COLOR=") {
    return run_locksim_in(LOCKSIM_SOURCE_DIR, arguments, environment);
}

// Writes `text` to a file of this test process's own and returns its path.
inline std::string write_temp(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::temp_directory_path() / (std::to_string(getpid()) + "_" + name);
    std::ofstream(path) << text;
    return path.string();
}

// A directory of this test process's own, emptied first.
inline std::filesystem::path fresh_directory(const std::string& name) {
    const auto path = std::filesystem::temp_directory_path() / (std::to_string(getpid()) + "_" + name);
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
    return path;
}

inline std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

inline std::size_t count_of(const std::string& text, const std::string& needle) {
    std::size_t count = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++count;
    return count;
}

// Text no report may show as it stands: markup, quotes and an ampersand, from a scenario
// file's names and descriptions; and the one way an HTML page may show it.
inline const std::string hostile_payload = R"(<script>alert("x&y")</script>)";
inline const std::string hostile_payload_escaped = "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;";

inline std::vector<std::string> all_matches(const std::string& text, const std::regex& pattern, int group = 1) {
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern); it != std::sregex_iterator(); ++it)
        found.push_back((*it)[group].str());
    return found;
}

}  // namespace locksim::testing
