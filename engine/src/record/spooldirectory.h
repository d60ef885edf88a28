#pragma once

// The spools of one recording: a directory where every process of the recorded program that
// initialised CUDA writes its own file. Read while the program runs (files still growing, new
// ones appearing) and once more after it has ended; each poll hands over the frames that have
// become complete since the last one.

#include "slicescope/core/result.h"
#include "spool/spoolformat.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace slicescope::record {

struct ProcessSpool {
    std::filesystem::path path;
    std::size_t index = 0; // order of discovery
    std::uint64_t bytesRead = 0;
    SpoolDecoder decoder;
    std::optional<BeginFrame> begin;
    std::optional<EndFrame> end;
    StatsFrame stats;
    std::string readError; // the file could not be read
};

class SpoolDirectory {
  public:
    explicit SpoolDirectory(std::filesystem::path directory) : directory_(std::move(directory)) {}

    using Sink = std::function<void(ProcessSpool& process, const Frame& frame)>;
    // Reads at most maxBytesPerFile new bytes of each spool and hands every complete frame to
    // sink, in file order.
    void poll(const Sink& sink, std::uint64_t maxBytesPerFile = std::uint64_t(64) << 20);
    // Polls until every spool has been read to its end.
    void readAll(const Sink& sink);

    const std::vector<std::unique_ptr<ProcessSpool>>& processes() const { return processes_; }
    const std::filesystem::path& directory() const { return directory_; }

  private:
    bool readSome(ProcessSpool& process, const Sink& sink,
                  std::uint64_t maxBytes); // true: more to read
    std::filesystem::path directory_;
    std::vector<std::unique_ptr<ProcessSpool>> processes_;
};

// The temporary spool folder of one recording: base/slicescope-record-PID-XXXXXX, made with
// mode 0700. The owner's process id is in the name so that a later recording can tell a folder
// left behind by a recorder that was killed (SIGKILL skips every clean-up) from one in use.
Result<std::filesystem::path> makeSpoolFolder(const std::filesystem::path& base);

// Removes the spool folders in base (named as makeSpoolFolder names them) that belong to this
// user and whose owner process no longer exists; a folder of a live process, of another user or
// not named with a process id is kept. Returns how many were removed.
std::size_t removeStaleSpoolFolders(const std::filesystem::path& base);

} // namespace slicescope::record
