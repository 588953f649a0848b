#include "cli/output_paths.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "cli/atomic_file.hpp"

namespace locksim {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void refuse(const OutputTarget& target, const std::string& why) {
    throw OutputError(fmt::format("{} {}: {}", target.option, target.path, why));
}

// One file: by device and inode when both exist (a link, a hard link, "./s.json"), else by
// the path with links, "." and ".." resolved (two outputs not written yet).
bool same_file(const std::string& a, const std::string& b) {
    struct stat first {
    }, second{};
    if (::stat(a.c_str(), &first) == 0 && ::stat(b.c_str(), &second) == 0)
        return first.st_dev == second.st_dev && first.st_ino == second.st_ino;
    std::error_code a_error, b_error;
    const fs::path resolved_a = fs::weakly_canonical(a, a_error), resolved_b = fs::weakly_canonical(b, b_error);
    return !a_error && !b_error && resolved_a == resolved_b;
}

// `folder` exists, is a folder, and this process may create files in it.
void require_writable_folder(const OutputTarget& target, const std::string& folder) {
    struct stat status {};
    if (::stat(folder.c_str(), &status) != 0) {
        if (errno == ENOENT) refuse(target, fmt::format("the folder {} does not exist; create it first", folder));
        refuse(target, fmt::format("cannot use the folder {}: {}", folder, std::strerror(errno)));
    }
    if (!S_ISDIR(status.st_mode)) refuse(target, fmt::format("{} is not a folder", folder));
    if (::access(folder.c_str(), W_OK | X_OK) != 0)
        refuse(target, fmt::format("cannot write in the folder {}: {}", folder, std::strerror(errno)));
}

void check_file(const OutputTarget& target) {
    const fs::path path(target.path);
    struct stat status {};
    if (::stat(target.path.c_str(), &status) == 0 && S_ISDIR(status.st_mode))
        refuse(target, "is a directory; give the name of a file to write");
    if (path.filename().empty() || path.filename() == "." || path.filename() == "..")
        refuse(target, "names no file; give the name of a file to write");
    require_writable_folder(target, path.parent_path().empty() ? "." : path.parent_path().string());
}

// A folder of pages: there and writable, or creatable in the nearest folder above it.
void check_folder(const OutputTarget& target) {
    struct stat status {};
    if (::stat(target.path.c_str(), &status) == 0) {
        if (!S_ISDIR(status.st_mode)) refuse(target, "is a file, not a folder; give a folder to write the pages into");
        require_writable_folder(target, target.path);
        return;
    }
    fs::path above = fs::path(target.path).parent_path();
    std::error_code error;
    while (!above.empty() && !fs::exists(above, error) && above != above.parent_path()) above = above.parent_path();
    require_writable_folder(target, above.empty() ? "." : above.string());
}

}  // namespace

void check_outputs(const std::vector<OutputTarget>& outputs, const std::vector<std::string>& inputs) {
    // Every file the command will write: the outputs that are files, and each folder's pages.
    struct Written {
        const OutputTarget* target;
        std::string path;
        std::string_view page;  // empty for a file output
    };
    std::vector<Written> written;
    for (const OutputTarget& target : outputs) {
        if (!target.folder) {
            check_file(target);
            written.push_back(Written{&target, target.path, {}});
            continue;
        }
        check_folder(target);
        for (const auto& page : target.pages)
            written.push_back(Written{&target, (fs::path(target.path) / page).string(), page});
    }
    // How a refusal names the file it refuses, after its option and path, and the other.
    const auto subject = [](const Written& one) {
        return one.page.empty() ? std::string("is") : fmt::format("its page {} is", one.page);
    };
    const auto other = [](const Written& one) {
        return one.page.empty() ? fmt::format("{} {}", one.target->option, one.path)
                                : fmt::format("the page {} of {} {}", one.page, one.target->option, one.target->path);
    };
    for (std::size_t k = 0; k < written.size(); ++k) {
        const Written& one = written[k];
        for (const auto& input : inputs)
            if (same_file(one.path, input))
                refuse(*one.target,
                       fmt::format("{} also an input of this command ({}); locksim never writes over what it reads: "
                                   "give another {}",
                                   subject(one), input, one.page.empty() ? "file" : "folder"));
        for (std::size_t j = 0; j < k; ++j)
            if (same_file(one.path, written[j].path))
                refuse(*one.target,
                       fmt::format("{} also {}; give each output its own file", subject(one), other(written[j])));
    }
}

std::vector<std::string> inputs_of(const Scenario& scenario) {
    std::vector<std::string> inputs{scenario.file};
    inputs.insert(inputs.end(), scenario.data_files.begin(), scenario.data_files.end());
    return inputs;
}

}  // namespace locksim
