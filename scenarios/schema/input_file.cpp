#include "scenarios/schema/input_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace locksim {
namespace {

// Closes the file however the read ends.
class OpenFile {
public:
    explicit OpenFile(int fd) : fd_(fd) {}
    OpenFile(const OpenFile&) = delete;
    OpenFile& operator=(const OpenFile&) = delete;
    ~OpenFile() { ::close(fd_); }
    int fd() const { return fd_; }

private:
    int fd_;
};

// What a file that is neither regular nor a directory is, in words.
std::string_view kind_of(mode_t mode) {
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISFIFO(mode)) return "a FIFO (a named pipe)";
    if (S_ISSOCK(mode)) return "a socket";
    return "a special file";
}

InputFileError not_regular(mode_t mode) {
    return InputFileError(InputProblem::not_regular,
                          fmt::format("is {}, not a regular file; locksim reads only regular files (a device or a "
                                      "pipe may never end)",
                                      kind_of(mode)));
}

}  // namespace

InputFileError input_too_big(std::string_view size, const InputLimit& limit) {
    return InputFileError(InputProblem::too_big,
                          fmt::format("the file is {} bytes; {}, and locksim reads at most {} ({})", size, limit.why,
                                      limit.bytes, limit.words));
}

std::string read_input_file(const std::string& path, const InputLimit& limit) {
    // O_NONBLOCK: a FIFO without a writer would block the open itself. O_NOCTTY: a terminal
    // named by mistake does not become the program's.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        const int error = errno;
        // A socket cannot be opened (ENXIO): say what it is rather than errno's words.
        struct stat status {};
        if (::stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode) && !S_ISDIR(status.st_mode))
            throw not_regular(status.st_mode);
        throw InputFileError(InputProblem::unreadable, fmt::format("cannot open the file: {}", std::strerror(error)));
    }
    const OpenFile file(fd);
    // The opened file, not the path: what is read is what was checked.
    struct stat status {};
    if (::fstat(fd, &status) != 0)
        throw InputFileError(InputProblem::unreadable, fmt::format("cannot read the file: {}", std::strerror(errno)));
    if (S_ISDIR(status.st_mode)) throw InputFileError(InputProblem::directory, "is a directory");
    if (!S_ISREG(status.st_mode)) throw not_regular(status.st_mode);
    if (static_cast<std::uint64_t>(status.st_size) > limit.bytes)
        throw input_too_big(std::to_string(status.st_size), limit);
    // A regular file never blocks; reads wait again, as on any file system.
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);

    // One byte past the limit at most, whatever the size said (the file may grow).
    const std::uint64_t most = limit.bytes + 1;
    std::string text(static_cast<std::size_t>(status.st_size) + 1, '\0');
    std::size_t have = 0;
    for (;;) {
        if (have == text.size()) text.resize(static_cast<std::size_t>(std::min<std::uint64_t>(most, 2 * have + 4096)));
        const std::size_t wanted = text.size() - have;
        if (wanted == 0) break;  // limit + 1 bytes read
        const ssize_t n = ::read(fd, text.data() + have, wanted);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0)
            throw InputFileError(InputProblem::unreadable,
                                 fmt::format("cannot read the file: {}", std::strerror(errno)));
        if (n == 0) break;
        have += static_cast<std::size_t>(n);
    }
    text.resize(have);
    if (have > limit.bytes) throw input_too_big(fmt::format("more than {}", limit.bytes), limit);
    if (const auto nul = text.find('\0'); nul != std::string::npos)
        throw InputFileError(InputProblem::nul_byte,
                             "a NUL byte, which no text file holds; whatever follows it would go unread",
                             position_at_offset(text, nul));
    return text;
}

std::string input_error_line(std::string_view shown, const InputFileError& error) {
    if (error.at) return fmt::format("{}:{}:{}: {}", shown, error.at->line, error.at->column, error.what());
    return fmt::format("{}: {}", shown, error.what());
}

}  // namespace locksim
