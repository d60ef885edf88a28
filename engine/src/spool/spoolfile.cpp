#include "spool/spoolfile.h"

#include "spool/spoolformat.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace slicescope::record {

Result<SpoolFile> SpoolFile::create(const std::filesystem::path& directory, long pid) {
    for (int n = 0; n < 1000; ++n) {
        const std::string name = std::to_string(pid) + (n == 0 ? "" : "-" + std::to_string(n)) +
                                 std::string(kSpoolSuffix);
        const auto path = directory / name;
        const int fd =
            ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0600);
        if (fd >= 0) {
            return SpoolFile(fd, path);
        }
        if (errno != EEXIST) {
            return fail(Error::Code::Io, "cannot create the spool file " + path.string() + ": " +
                                             std::strerror(errno));
        }
    }
    return fail(Error::Code::Io, "cannot create a spool file in " + directory.string() +
                                     ": too many files for pid " + std::to_string(pid));
}

SpoolFile::SpoolFile(SpoolFile&& other) noexcept : fd_(other.fd_), path_(std::move(other.path_)) {
    other.fd_ = -1;
}

SpoolFile& SpoolFile::operator=(SpoolFile&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) {
            ::close(fd_);
        }
        fd_ = other.fd_;
        path_ = std::move(other.path_);
        other.fd_ = -1;
    }
    return *this;
}

SpoolFile::~SpoolFile() {
    if (fd_ >= 0) {
        ::close(fd_);
    }
}

bool SpoolFile::write(std::string_view bytes) {
    const char* p = bytes.data();
    std::size_t left = bytes.size();
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return false;
        }
        p += n;
        left -= std::size_t(n);
    }
    return true;
}

} // namespace slicescope::record
