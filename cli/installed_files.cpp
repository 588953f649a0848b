#include "cli/installed_files.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

// The build names them (CMakeLists.txt: the install prefix's folders); a build without
// them, such as a compiler run by hand, looks where the .deb puts them.
#ifndef LOCKSIM_DATA_DIR
#define LOCKSIM_DATA_DIR "/usr/share/locksim"
#endif
#ifndef LOCKSIM_DOC_DIR
#define LOCKSIM_DOC_DIR "/usr/share/doc/locksim"
#endif

namespace locksim {

namespace {
constexpr const char* checkout_library = "scenarios";
}

std::string installed_data_dir() {
    return LOCKSIM_DATA_DIR;
}

std::string installed_scenario_library() {
    return installed_data_dir() + "/scenarios";
}

std::string installed_schema() {
    return installed_data_dir() + "/scenario.schema.json";
}

std::string installed_doc_dir() {
    return LOCKSIM_DOC_DIR;
}

std::vector<std::string> scenario_paths_or_library(const std::vector<std::string>& given) {
    if (!given.empty()) return given;
    std::error_code error;
    if (std::filesystem::is_directory(checkout_library, error)) return {checkout_library};
    fmt::print(stderr, "no PATH given and no {}/ here: reading the installed library, {}\n", checkout_library,
               installed_scenario_library());
    return {installed_scenario_library()};
}

std::string default_scenario_paths_help() {
    return fmt::format(
        "default: {}/ when the current folder has one, as a checkout does; otherwise the installed library, {}",
        checkout_library, installed_scenario_library());
}

}  // namespace locksim
