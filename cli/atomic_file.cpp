#include "cli/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>

namespace locksim {
namespace {

// Why a folder of pages cannot be written into.
constexpr std::string_view linked_folder =
    "is a symbolic link or not a folder; pages go only into real folders, never through a link";

// Beside the target, so the rename stays within one file system and is atomic. Named after
// the host and process, and created exclusively: two tasks on a shared file system (or two
// containers that are both PID 1) never write the same temporary file.
std::string temporary_name(const std::string& name) {
    char host[256] = "host";
    ::gethostname(host, sizeof host - 1);
    static std::atomic<unsigned> written_files{0};
    return fmt::format("{}.tmp-{}-{}-{}", name, host, ::getpid(), written_files++);
}

// One write of several files into a folder, undone unless committed: the temporary files,
// the files renamed into place that were not there before, and the folders it made.
class FolderWrite {
public:
    // `folder` empty: the current folder, and files are shown by their own paths.
    FolderWrite(std::string folder, std::string_view option, bool create_folder)
        : folder_(std::move(folder)), option_(option) {
        try {
            if (create_folder && !folder_.empty()) make_folder();
            const int fd = ::open(folder_.empty() ? "." : folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            if (fd < 0) fail(folder_, fmt::format("cannot open the folder: {}", std::strerror(errno)));
            folders_[""] = fd;
        } catch (...) {
            undo();  // no destructor runs for a constructor that throws
            throw;
        }
    }
    FolderWrite(const FolderWrite&) = delete;
    FolderWrite& operator=(const FolderWrite&) = delete;
    ~FolderWrite() {
        if (!committed_) undo();
        for (const auto& [name, fd] : folders_) ::close(fd);
    }

    // Writes `content` to a temporary file beside `path` (relative to the folder) and
    // flushes it to disk.
    void stage(const std::string& path, std::string_view content) {
        const auto slash = path.rfind('/');
        const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash);
        const std::string name = path.substr(slash == std::string::npos ? 0 : slash + 1);
        const std::string shown = shown_path(path);
        if (name.empty() || name == "." || name == "..") fail(shown, "is not a file name");
        const int folder_fd = open_folder(folder);
        struct stat status {};
        const bool existed = ::fstatat(folder_fd, name.c_str(), &status, AT_SYMLINK_NOFOLLOW) == 0;
        if (existed && S_ISDIR(status.st_mode)) fail(shown, "is a directory; it is in the way of the file");
        Staged staged{folder_fd, name, temporary_name(name), shown, existed, false};
        const std::string shown_temporary =
            shown_path(folder.empty() ? staged.temporary : folder + "/" + staged.temporary);
        const int fd =
            ::openat(folder_fd, staged.temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0) fail(shown, fmt::format("cannot create {}: {}", shown_temporary, std::strerror(errno)));
        staged_.push_back(staged);
        const auto failed = [&](const char* what) {
            const int error = errno;
            ::close(fd);
            fail(shown, fmt::format("cannot {} {}: {}", what, shown_temporary, std::strerror(error)));
        };
        for (std::size_t written = 0; written < content.size();) {
            const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) failed("write");
            written += static_cast<std::size_t>(n);
        }
        if (::fsync(fd) != 0) failed("flush");
        if (::close(fd) != 0) fail(shown, fmt::format("cannot close {}: {}", shown_temporary, std::strerror(errno)));
    }

    // Renames every staged file into place, then flushes the folders, so that the renames
    // themselves reach the disk.
    void commit() {
        for (Staged& staged : staged_) {
            if (::renameat(staged.folder_fd, staged.temporary.c_str(), staged.folder_fd, staged.name.c_str()) != 0)
                fail(staged.shown, fmt::format("cannot rename {} to it: {}", staged.temporary, std::strerror(errno)));
            staged.renamed = true;
        }
        committed_ = true;
        for (const auto& [name, fd] : folders_) ::fsync(fd);
    }

private:
    struct Staged {
        int folder_fd;
        std::string name;
        std::string temporary;
        std::string shown;  // as messages name the file
        bool existed;       // a file of that name was there before: kept if the write is undone
        bool renamed;
    };

    std::string shown_path(const std::string& relative) const {
        return folder_.empty() ? relative : (std::filesystem::path(folder_) / relative).string();
    }

    [[noreturn]] void fail(const std::string& shown, const std::string& what) const {
        throw OutputError(fmt::format("{} {}: {}", option_, shown, what));
    }

    // The folder named on the command line and any missing above it, remembered for undo.
    void make_folder() {
        std::vector<std::filesystem::path> missing;
        std::error_code error;
        for (std::filesystem::path p = folder_;
             !p.empty() && !std::filesystem::exists(std::filesystem::symlink_status(p, error)); p = p.parent_path()) {
            missing.push_back(p);
            if (p == p.parent_path()) break;
        }
        for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
            if (::mkdir(it->c_str(), 0777) != 0 && errno != EEXIST)
                fail(folder_, fmt::format("cannot create the folder {}: {}", it->string(), std::strerror(errno)));
            created_.push_back(it->string());
        }
    }

    // The folder `relative` inside the output folder, made if missing; each step must be a
    // real folder (O_NOFOLLOW): a link planted there could lead anywhere.
    int open_folder(const std::string& relative) {
        if (const auto found = folders_.find(relative); found != folders_.end()) return found->second;
        const auto slash = relative.rfind('/');
        const int parent = open_folder(slash == std::string::npos ? "" : relative.substr(0, slash));
        const std::string name = relative.substr(slash == std::string::npos ? 0 : slash + 1);
        const std::string shown = shown_path(relative);
        if (name.empty() || name == "." || name == "..") fail(shown, "is not a folder name");
        int fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0 && errno == ENOENT) {
            if (::mkdirat(parent, name.c_str(), 0777) != 0)
                fail(shown, fmt::format("cannot create the folder: {}", std::strerror(errno)));
            created_.push_back(shown);
            fd = ::openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        }
        if (fd < 0 && (errno == ELOOP || errno == ENOTDIR)) fail(shown, std::string(linked_folder));
        if (fd < 0) fail(shown, fmt::format("cannot open the folder: {}", std::strerror(errno)));
        folders_[relative] = fd;
        return fd;
    }

    void undo() {
        for (const auto& staged : staged_) {
            if (!staged.renamed)
                ::unlinkat(staged.folder_fd, staged.temporary.c_str(), 0);
            else if (!staged.existed)
                ::unlinkat(staged.folder_fd, staged.name.c_str(), 0);
        }
        for (auto it = created_.rbegin(); it != created_.rend(); ++it) ::rmdir(it->c_str());
    }

    std::string folder_;
    std::string option_;
    std::map<std::string, int> folders_;  // relative path ("" the folder itself) -> open descriptor
    std::vector<std::string> created_;    // folders made, in the order made
    std::vector<Staged> staged_;
    bool committed_ = false;
};

}  // namespace

void refuse_linked_folder(const std::string& folder, const std::string& relative, std::string_view option) {
    const std::filesystem::path path = std::filesystem::path(folder) / relative;
    std::error_code error;
    const auto status = std::filesystem::symlink_status(path, error);
    if (std::filesystem::exists(status) && !std::filesystem::is_directory(status))
        throw OutputError(fmt::format("{} {}: {}", option, path.string(), linked_folder));
}

void write_files_atomically(const std::string& folder, const std::vector<OutputFile>& files, std::string_view option) {
    FolderWrite write(folder.empty() ? "." : folder, option, true);
    for (const auto& file : files) write.stage(file.path, file.content);
    write.commit();
}

void write_file_atomically(const std::string& path, std::string_view content, std::string_view option) {
    const std::filesystem::path target(path);
    FolderWrite write(target.parent_path().string(), option, false);
    write.stage(target.filename().string(), content);
    write.commit();
}

void deliver(const std::string& text, const std::optional<std::string>& output) {
    if (output)
        write_file_atomically(*output, text);
    else
        fmt::print("{}", text);
}

}  // namespace locksim
