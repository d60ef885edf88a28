#pragma once

// One process's spool file, written with write(2) so that what is written survives the process's
// death however it dies. Opened with O_APPEND and O_CLOEXEC; the name is "<pid>.spool" in the
// recording directory, or "<pid>-<n>.spool" when a process exec'ed earlier under the same pid.

#include "slicescope/core/result.h"

#include <filesystem>
#include <string>
#include <string_view>

namespace slicescope::record {

class SpoolFile {
  public:
    static Result<SpoolFile> create(const std::filesystem::path& directory, long pid);
    SpoolFile(SpoolFile&& other) noexcept;
    SpoolFile& operator=(SpoolFile&& other) noexcept;
    SpoolFile(const SpoolFile&) = delete;
    SpoolFile& operator=(const SpoolFile&) = delete;
    ~SpoolFile();

    // Writes all of bytes, retrying after signals and short writes. Async-signal-safe.
    bool write(std::string_view bytes);
    const std::filesystem::path& path() const { return path_; }
    int fd() const { return fd_; }

  private:
    SpoolFile(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
    int fd_ = -1;
    std::filesystem::path path_;
};

} // namespace slicescope::record
