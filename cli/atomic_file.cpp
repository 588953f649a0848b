#include "cli/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace locksim {

void write_file_atomically(const std::string& path, std::string_view content, std::string_view option) {
    // Beside the target, so the rename stays within one file system and is atomic. Named
    // after the host and process, and created exclusively: two tasks on a shared file
    // system (or two containers that are both PID 1) never write the same temporary file.
    char host[256] = "host";
    ::gethostname(host, sizeof host - 1);
    static std::atomic<unsigned> written_files{0};
    const std::string temporary = fmt::format("{}.tmp-{}-{}-{}", path, host, ::getpid(), written_files++);
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0)
        throw OutputError(fmt::format("{} {}: cannot create {}: {}", option, path, temporary, std::strerror(errno)));
    auto fail = [&](const char* what) {
        const int error = errno;
        ::close(fd);
        ::unlink(temporary.c_str());
        throw OutputError(fmt::format("{} {}: cannot {} {}: {}", option, path, what, temporary, std::strerror(error)));
    };
    for (std::size_t written = 0; written < content.size();) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("write");
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) fail("flush");
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        throw OutputError(fmt::format("{} {}: cannot close {}: {}", option, path, temporary, std::strerror(error)));
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        throw OutputError(
            fmt::format("{} {}: cannot rename {} to it: {}", option, path, temporary, std::strerror(error)));
    }
    // The rename itself reaches the disk with its directory.
    const std::string directory = std::filesystem::path(path).parent_path().string();
    const int directory_fd = ::open(directory.empty() ? "." : directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (directory_fd >= 0) {
        ::fsync(directory_fd);
        ::close(directory_fd);
    }
}

bool make_directory(const std::string& directory) {
    std::error_code error;
    std::filesystem::create_directories(directory, error);
    if (!error && std::filesystem::is_directory(directory)) return true;
    fmt::print(stderr, "{}: cannot create the report directory: {}\n", directory,
               error ? error.message() : std::string("a file of that name is in the way"));
    return false;
}

void deliver(const std::string& text, const std::optional<std::string>& output) {
    if (output)
        write_file_atomically(*output, text);
    else
        fmt::print("{}", text);
}

}  // namespace locksim
