#pragma once

// Writing a file so that a reader sees the old content or the complete new content, never a
// half-written file, and never replacing what should not be replaced: every file the engine
// writes (traces, CSV and Chrome exports, the GUI's session) goes through here. The rules are in
// docs/reliability.md ("Writing files").
#include "slicescope/core/result.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <ostream>

namespace slicescope::trace {

// How a path is written, decided from what is there now.
enum class OutputKind {
    NewFile,      // nothing there: a new file, mode 0666 less the umask
    ReplaceFile,  // a regular file the user may write: replaced atomically, keeping its mode
    WriteThrough, // a FIFO or character device (/dev/null, a terminal): written to, never replaced
};

struct OutputTarget {
    OutputKind kind = OutputKind::NewFile;
    // Where the data goes: symbolic links resolved (a link's target is created or replaced, never
    // the link), except for WriteThrough, which opens the path as given.
    std::filesystem::path path;
    bool fifo = false;      // WriteThrough: a FIFO (opened without waiting for a reader)
    std::uint32_t mode = 0; // ReplaceFile: the permission bits to keep
    std::uint32_t uid = 0;  // ReplaceFile: the owner to keep where the system allows it
    std::uint32_t gid = 0;
};

// Decides how path would be written, or refuses it (Error::Code::Io, "cannot write PATH: why"):
// a directory, a block device or a socket; a regular file that is read-only (no write bit at
// all: refused even for root, who may write anything) or that the user may not write; a
// folder in which the user may not create the temporary file; a name whose folder does not
// exist. Nothing is opened or created.
Result<OutputTarget> resolveOutput(const std::filesystem::path& path);

// Writes path as resolveOutput says. For a new or replaced file: creates a temporary file beside
// the target, lets write fill it through a stream, flushes and fsyncs it, then renames it over the
// target; on any failure the temporary file is removed and the target is left as it was. For a
// FIFO or character device: opens it and writes through (a FIFO that no process reads is refused
// rather than waited on). Errors are Error::Code::Io, naming path and the system's reason.
Status writeFileAtomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);

// True when a and b name one file: the same device and inode when both exist (through links,
// hard links and different spellings), else the same place once the existing folders on the way
// and any dangling links are resolved (two spellings of one new file, or a link to the other's
// name).
bool sameFile(const std::filesystem::path& a, const std::filesystem::path& b);

} // namespace slicescope::trace
