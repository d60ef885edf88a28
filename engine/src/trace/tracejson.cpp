// The slicescope-trace JSON format (docs/trace-format.md): file handling around the reader
// (tracereader.cpp) and the writer (tracewriter.cpp).
#include "slicescope/trace/tracejson.h"

#include "filebuffer.h"
#include "slicescope/trace/traceimport.h"
#include "slicescope/trace/tracelimits.h"
#include "tracereader.h"
#include "tracewriter.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace slicescope::trace {

namespace {

// What a file that is not a regular file is, for the message that refuses it.
const char* fileKind(mode_t mode) {
    if (S_ISDIR(mode)) {
        return "a folder";
    }
    if (S_ISFIFO(mode)) {
        return "a FIFO (named pipe)";
    }
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a plain file";
}

// "1024 MiB" for the format's limit; a lowered one in bytes.
std::string sizeText(std::uint64_t bytes) {
    return bytes % (std::uint64_t(1) << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                                 : std::to_string(bytes) + " bytes";
}

// Reads a trace file whole, refusing before reading anything what could never end or never
// fit: a FIFO, a device (/dev/zero) or a socket, and a file over maxBytes.
Result<FileBuffer> readWholeFile(const std::filesystem::path& path, std::uint64_t maxBytes) {
    const auto ioError = [&path](int error) {
        return fail(Error::Code::Io, "cannot read " + path.string() + ": " + std::strerror(error));
    };
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one, forever. It does
    // not change how a regular file reads.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return ioError(errno);
    }
    struct Closer { // on every way out, running out of memory included
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        return ioError(errno);
    }
    if (!S_ISREG(info.st_mode)) {
        return fail(Error::Code::Io, "cannot read " + path.string() +
                                         ": not a regular file: " + fileKind(info.st_mode));
    }
    const auto tooLarge = [&path, maxBytes](const std::string& size) {
        return fail(Error::Code::Io, "cannot read " + path.string() + ": the file is " + size +
                                         ", more than the " + sizeText(maxBytes) +
                                         " a trace may have (docs/trace-format.md)");
    };
    if (std::uint64_t(info.st_size) > maxBytes) {
        return tooLarge(std::to_string(std::uint64_t(info.st_size)) + " bytes");
    }
    // The size is a first guess (the file may change while we read, and files such as those in
    // /proc say 0): read until the end, in steps, but never past the limit. room: what this read
    // may fill, the size and one byte, which a file that grew fills.
    FileBuffer data;
    std::size_t size = 0;
    std::size_t room = info.st_size > 0 ? std::size_t(info.st_size) + 1 : std::size_t(1) << 16;
    data.reserve(room);
    for (;;) {
        if (size == room) {
            if (size > maxBytes) {
                return tooLarge("growing past " + std::to_string(size) + " bytes");
            }
            room = std::min<std::size_t>(room * 2, maxBytes + 1);
            data.setSize(size);
            data.reserve(room);
        }
        const ssize_t got = ::read(fd, data.data() + size, room - size);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            return ioError(errno);
        }
        if (got == 0) {
            break;
        }
        size += std::size_t(got);
    }
    if (size > maxBytes) {
        return tooLarge("growing past " + std::to_string(size) + " bytes");
    }
    data.setSize(size);
    return data;
}

} // namespace

Result<Trace> parseTrace(std::string_view json, const ReadOptions& options) {
    const TraceFormat format = detectFormat(json);
    if (format == TraceFormat::SliceScope) {
        return readTraceText(json, options); // hands each run to takeRun as it is read
    }
    auto trace = importTrace(json, format, options);
    if (trace && options.takeRun) {
        for (Run& run : trace->runs) {
            options.takeRun(std::move(run));
        }
        trace->runs.clear();
    }
    return trace;
}

Result<Trace> readTrace(const std::filesystem::path& path, const ReadOptions& options) {
    auto text = readWholeFile(path, options.maxFileBytes);
    if (!text) {
        return tl::unexpected(text.error());
    }
    ReadOptions named = options;
    if (named.sourceFile.empty()) {
        named.sourceFile = path.filename().string();
    }
    auto trace = parseTrace(text->view(), named);
    if (!trace && trace.error().code == Error::Code::Parse) {
        return fail(Error::Code::Parse, path.string() + ": " + trace.error().message);
    }
    return trace;
}

std::string toJson(const Trace& trace) {
    std::string out;
    std::size_t activities = 0;
    for (const auto& run : trace.runs) {
        activities += run.activities.size();
    }
    out.reserve(4096 + activities * 128);
    writeTraceText(trace, out, nullptr);
    return out;
}

Status writeTrace(const Trace& trace, const std::filesystem::path& path,
                  std::uint64_t maxFileBytes) {
    return writeTraceLimited(trace, path, maxFileBytes);
}

Status writeTrace(const RunsToWrite& runs, const std::filesystem::path& path,
                  std::uint64_t maxFileBytes) {
    return writeTraceLimited(runs, path, maxFileBytes);
}

} // namespace slicescope::trace
