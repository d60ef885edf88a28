#include "slicescope/trace/atomicfile.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <optional>
#include <streambuf>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace slicescope::trace {

namespace {

// A stream buffer over a file descriptor that remembers the first write error.
class FdOutBuffer : public std::streambuf {
  public:
    explicit FdOutBuffer(int fd) : fd_(fd) {
        setp(buffer_.data(), buffer_.data() + buffer_.size());
    }
    int error() const { return error_; }

  protected:
    int_type overflow(int_type c) override {
        if (!drain()) {
            return traits_type::eof();
        }
        if (!traits_type::eq_int_type(c, traits_type::eof())) {
            *pptr() = traits_type::to_char_type(c);
            pbump(1);
        }
        return traits_type::not_eof(c);
    }
    std::streamsize xsputn(const char* data, std::streamsize count) override {
        if (count > std::streamsize(epptr() - pptr())) {
            // Large pieces (the writers hand over ~1 MiB chunks) go straight to the file.
            if (!drain() || !writeAll(data, std::size_t(count))) {
                return 0;
            }
            return count;
        }
        std::memcpy(pptr(), data, std::size_t(count));
        pbump(int(count));
        return count;
    }
    int sync() override { return drain() ? 0 : -1; }

  private:
    bool drain() {
        const bool ok = writeAll(pbase(), std::size_t(pptr() - pbase()));
        setp(buffer_.data(), buffer_.data() + buffer_.size());
        return ok;
    }
    bool writeAll(const char* data, std::size_t count) {
        while (count > 0 && error_ == 0) {
            const ssize_t written = ::write(fd_, data, count);
            if (written < 0) {
                if (errno != EINTR) {
                    error_ = errno;
                }
                continue;
            }
            data += written;
            count -= std::size_t(written);
            written_ += std::uint64_t(written);
            startWriteBack();
        }
        return error_ == 0;
    }
    // Every kWriteBackBytes, the disk starts writing what came before (without waiting for it):
    // the fsync at the end then waits for the last piece only, not for the whole file (226 MiB:
    // 0.25-0.28 s here). Not a file (a pipe, a device): the call fails and nothing changes.
    void startWriteBack() {
        if (written_ - startedUpTo_ < kWriteBackBytes) {
            return;
        }
        (void)::sync_file_range(fd_, off_t(startedUpTo_), off_t(written_ - startedUpTo_),
                                SYNC_FILE_RANGE_WRITE);
        startedUpTo_ = written_;
    }

    static constexpr std::uint64_t kWriteBackBytes = 8 << 20;
    int fd_;
    int error_ = 0;
    std::uint64_t written_ = 0;     // bytes written through this buffer
    std::uint64_t startedUpTo_ = 0; // written back (asked to be) up to here
    std::array<char, 1 << 16> buffer_{};
};

Error ioError(const std::filesystem::path& path, const std::string& what, int error) {
    return Error{Error::Code::Io, "cannot write " + path.string() + ": " + what +
                                      (error != 0 ? std::string(std::strerror(error)) : "")};
}

tl::unexpected<Error> refuse(const std::filesystem::path& path, const std::string& why) {
    return tl::unexpected(ioError(path, why, 0));
}

std::string octalMode(mode_t mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", unsigned(mode & 07777));
    return text;
}

std::filesystem::path folderOf(const std::filesystem::path& path) {
    return path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
}

// The temporary file is made in the target's folder: it must be there and writable (a
// read-only file system says EROFS here, even to root).
Status checkFolder(const std::filesystem::path& path, const std::filesystem::path& target) {
    const std::filesystem::path folder = folderOf(target);
    struct stat st {};
    if (::stat(folder.c_str(), &st) != 0) {
        return tl::unexpected(ioError(path, "", errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        return tl::unexpected(ioError(path, "", ENOTDIR));
    }
    if (::faccessat(AT_FDCWD, folder.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
        return tl::unexpected(
            ioError(path, "cannot create files in " + folder.string() + ": ", errno));
    }
    return {};
}

// Follows the links of path's last component to the name they end at (which may not exist yet),
// as the kernel would, and with its protected_symlinks rule, since this resolution happens here
// and the rename that follows does not go through the link: in a sticky folder anyone may write
// (/tmp), a link is followed only when it belongs to the writer or to the folder's owner.
// Otherwise root writing -o /tmp/x.json would replace whatever another user's link names.
Result<std::filesystem::path> followLinks(const std::filesystem::path& path) {
    std::filesystem::path name = path;
    for (int links = 0;; ++links) {
        struct stat ls {};
        if (::lstat(name.c_str(), &ls) != 0) {
            if (errno == ENOENT) {
                return name;
            }
            return tl::unexpected(ioError(path, "", errno));
        }
        if (!S_ISLNK(ls.st_mode)) {
            return name;
        }
        if (links == 40) {
            return tl::unexpected(ioError(path, "", ELOOP));
        }
        const std::filesystem::path folder = folderOf(name);
        struct stat folderStat {};
        if (::stat(folder.c_str(), &folderStat) == 0 && (folderStat.st_mode & S_ISVTX) != 0 &&
            (folderStat.st_mode & S_IWOTH) != 0 && ls.st_uid != ::geteuid() &&
            ls.st_uid != folderStat.st_uid) {
            return refuse(path, "it is a link in the shared folder " + folder.string() +
                                    " that belongs to another user; it is not followed");
        }
        std::error_code error;
        const std::filesystem::path next = std::filesystem::read_symlink(name, error);
        if (error) {
            return refuse(path, error.message());
        }
        name = next.is_absolute() ? next : folder / next;
    }
}

void syncDirectory(const std::filesystem::path& directory) {
    // Makes the rename itself durable; a failure here loses nothing already written.
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

// Temporaries of path are named ".NAME.tmp-PID-N". One whose process is gone was left by a
// writer that was killed or crashed mid-way: remove it, so killed writers do not pile up junk
// beside the user's files. A live process's temporary (even one whose PID was reused) is kept.
void removeStaleTemporaries(const std::filesystem::path& directory, const std::string& name) {
    const std::string prefix = "." + name + ".tmp-";
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
        const std::string file = entry.path().filename().string();
        if (file.compare(0, prefix.size(), prefix) != 0) {
            continue;
        }
        const char* digits = file.c_str() + prefix.size();
        char* end = nullptr;
        const long pid = std::strtol(digits, &end, 10);
        if (end == digits || *end != '-' || pid <= 0 || pid == long(::getpid())) {
            continue;
        }
        if (::kill(pid_t(pid), 0) != 0 && errno == ESRCH) {
            ::unlink(entry.path().c_str());
        }
    }
}

} // namespace

Result<OutputTarget> resolveOutput(const std::filesystem::path& path) {
    if (path.empty() || !path.has_filename()) {
        return refuse(path, "not a file name");
    }
    OutputTarget target;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
            // Replacing /dev/null (run as root) or a FIFO a reader waits on breaks the machine or
            // the reader; what the user means is to write into it.
            target.kind = OutputKind::WriteThrough;
            target.path = path;
            target.fifo = S_ISFIFO(st.st_mode);
            return target;
        }
        if (S_ISDIR(st.st_mode)) {
            return refuse(path, "it is a directory");
        }
        if (!S_ISREG(st.st_mode)) {
            return refuse(path, std::string("it is a ") +
                                    (S_ISBLK(st.st_mode)    ? "block device"
                                     : S_ISSOCK(st.st_mode) ? "socket"
                                                            : "special file") +
                                    "; only regular files, FIFOs and character devices are "
                                    "written");
        }
        // Root passes access() for any file: the mode bits say whether its owner meant it to
        // be kept as it is.
        if ((st.st_mode & 0222) == 0) {
            return refuse(path, "it is read-only (mode " + octalMode(st.st_mode) +
                                    "); make it writable or choose another name");
        }
        if (::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) != 0) {
            return tl::unexpected(ioError(path, "", errno));
        }
        // A link is followed to the file it names: that file is replaced, the link kept.
        auto followed = followLinks(path);
        if (!followed) {
            return tl::unexpected(followed.error());
        }
        target.path = *followed;
        target.kind = OutputKind::ReplaceFile;
        target.mode = std::uint32_t(st.st_mode & 07777);
        target.uid = std::uint32_t(st.st_uid);
        target.gid = std::uint32_t(st.st_gid);
        if (auto folder = checkFolder(path, target.path); !folder) {
            return tl::unexpected(folder.error());
        }
        return target;
    }
    if (errno != ENOENT) {
        return tl::unexpected(ioError(path, "", errno));
    }
    // Nothing there yet, or a link to a name that does not exist yet: the file is created where
    // the last link points, as a shell's redirection would.
    auto followed = followLinks(path);
    if (!followed) {
        return tl::unexpected(followed.error());
    }
    const std::filesystem::path& name = *followed;
    if (!name.has_filename()) {
        return refuse(path, "not a file name");
    }
    if (auto folder = checkFolder(path, name); !folder) {
        return tl::unexpected(folder.error());
    }
    target.kind = OutputKind::NewFile;
    target.path = name;
    return target;
}

namespace {

// The text write() produces, through fd: 0, or the errno of what failed (ENOMEM when write()
// ran out of memory, EIO when the stream failed without one).
int writeToFd(int fd, const std::function<void(std::ostream&)>& write) {
    FdOutBuffer buffer(fd);
    std::ostream stream(&buffer);
    int error = 0;
    try {
        write(stream);
    } catch (const std::bad_alloc&) {
        error = ENOMEM;
    }
    stream.flush();
    if (error == 0) {
        error = buffer.error();
    }
    if (error == 0 && !stream) {
        error = EIO;
    }
    return error;
}

Status writeThrough(const std::filesystem::path& path, const OutputTarget& target,
                    const std::function<void(std::ostream&)>& write) {
    // O_NONBLOCK: a FIFO that no process reads fails with ENXIO instead of hanging the writer.
    const int fd = ::open(target.path.c_str(),
                          O_WRONLY | O_NOCTTY | O_CLOEXEC | (target.fifo ? O_NONBLOCK : 0));
    if (fd < 0) {
        return tl::unexpected(errno == ENXIO && target.fifo
                                  ? ioError(path, "it is a FIFO that no process is reading", 0)
                                  : ioError(path, "", errno));
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode))) {
        ::close(fd);
        return refuse(path, "it changed while being opened");
    }
    if (target.fifo) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        // A pipe's reader (tee, ssh: `--host` streams traces so) takes larger pieces from a
        // 1 MiB pipe, with fewer wake-ups each side; where the kernel refuses, the default stays.
        ::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
    }
    int error = writeToFd(fd, write);
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    if (error != 0) {
        return tl::unexpected(ioError(path, "", error));
    }
    return {};
}

} // namespace

Status writeFileAtomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
    auto target = resolveOutput(path);
    if (!target) {
        return tl::unexpected(target.error());
    }
    if (target->kind == OutputKind::WriteThrough) {
        return writeThrough(path, *target, write);
    }
    const std::filesystem::path& final = target->path;
    const std::filesystem::path directory = folderOf(final);
    static std::atomic<unsigned> counter{0};
    removeStaleTemporaries(directory, final.filename().string());

    // O_EXCL with a name nobody else uses; the mode is 0666 less the umask, as for any new file.
    std::filesystem::path temporary;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temporary = directory / ("." + final.filename().string() + ".tmp-" +
                                 std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) {
            return tl::unexpected(ioError(path, "", errno));
        }
    }
    if (fd < 0) {
        return tl::unexpected(ioError(path, "no free temporary file name", 0));
    }
    if (target->kind == OutputKind::ReplaceFile) {
        // The replacement keeps the file's owner (where allowed: root writing a user's file
        // leaves it the user's) and its permissions; chown first, as it may clear set-id bits.
        if (target->uid != std::uint32_t(::geteuid()) ||
            target->gid != std::uint32_t(::getegid())) {
            (void)!::fchown(fd, uid_t(target->uid), gid_t(target->gid));
        }
        (void)!::fchmod(fd, mode_t(target->mode));
    }

    int error = writeToFd(fd, write);
    if (error == 0 && ::fsync(fd) != 0) {
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    if (error == 0 && ::rename(temporary.c_str(), final.c_str()) != 0) {
        error = errno;
    }
    if (error != 0) {
        ::unlink(temporary.c_str());
        return tl::unexpected(ioError(path, "", error));
    }
    syncDirectory(directory);
    return {};
}

bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b) {
    struct stat sa {};
    struct stat sb {};
    const bool aExists = ::stat(a.c_str(), &sa) == 0;
    const bool bExists = ::stat(b.c_str(), &sb) == 0;
    if (aExists && bExists) {
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    }
    if (aExists || bExists) {
        return false;
    }
    // Neither exists yet: compare the names a writer would create, past any dangling link (one
    // output named through a link to the other's name is the same new file).
    const auto created = [](const std::filesystem::path& p) {
        auto followed = followLinks(p);
        std::error_code error;
        auto place = std::filesystem::weakly_canonical(
            std::filesystem::absolute(followed ? *followed : p), error);
        return error ? std::optional<std::filesystem::path>() : std::optional(place);
    };
    const auto placeA = created(a);
    const auto placeB = created(b);
    return placeA && placeB && *placeA == *placeB;
}

} // namespace slicescope::trace
