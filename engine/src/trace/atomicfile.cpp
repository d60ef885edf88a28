#include "atomicfile.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <new>
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
        }
        return error_ == 0;
    }

    int fd_;
    int error_ = 0;
    std::array<char, 1 << 16> buffer_{};
};

Error ioError(const std::filesystem::path& path, const std::string& what, int error) {
    return Error{Error::Code::Io, "cannot write " + path.string() + ": " + what +
                                      (error != 0 ? std::string(std::strerror(error)) : "")};
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

Status writeFileAtomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
    if (path.empty() || !path.has_filename()) {
        return tl::unexpected(ioError(path, "not a file name", 0));
    }
    const std::filesystem::path directory =
        path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
    static std::atomic<unsigned> counter{0};
    removeStaleTemporaries(directory, path.filename().string());

    // O_EXCL with a name nobody else uses; the mode is 0666 less the umask, as for any new file.
    std::filesystem::path temporary;
    int fd = -1;
    for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
        temporary = directory / ("." + path.filename().string() + ".tmp-" +
                                 std::to_string(::getpid()) + "-" + std::to_string(counter++));
        fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST) {
            return tl::unexpected(ioError(path, "", errno));
        }
    }
    if (fd < 0) {
        return tl::unexpected(ioError(path, "no free temporary file name", 0));
    }
    // Replacing a file keeps its permissions.
    struct stat existing {};
    if (::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode)) {
        if (::fchmod(fd, existing.st_mode & 07777) != 0) {
            // Not fatal: the new file keeps the default mode.
        }
    }

    int error = 0;
    {
        FdOutBuffer buffer(fd);
        std::ostream stream(&buffer);
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
    }
    if (error == 0 && ::fsync(fd) != 0) {
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    if (error == 0 && ::rename(temporary.c_str(), path.c_str()) != 0) {
        error = errno;
    }
    if (error != 0) {
        ::unlink(temporary.c_str());
        return tl::unexpected(ioError(path, "", error));
    }
    syncDirectory(directory);
    return {};
}

} // namespace slicescope::trace
