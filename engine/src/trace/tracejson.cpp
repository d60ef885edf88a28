// The slicescope-trace JSON format (docs/trace-format.md): file handling around the reader
// (tracereader.cpp) and the writer (tracewriter.cpp).
#include "slicescope/trace/tracejson.h"

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
Result<std::string> readWholeFile(const std::filesystem::path& path, std::uint64_t maxBytes) {
    const auto ioError = [&path](int error) {
        return fail(Error::Code::Io, "cannot read " + path.string() + ": " + std::strerror(error));
    };
    // O_NONBLOCK: opening a FIFO with no writer would otherwise wait for one, forever. It does
    // not change how a regular file reads.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return ioError(errno);
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        const int error = errno;
        ::close(fd);
        return ioError(error);
    }
    if (!S_ISREG(info.st_mode)) {
        ::close(fd);
        return fail(Error::Code::Io, "cannot read " + path.string() +
                                         ": not a regular file: " + fileKind(info.st_mode));
    }
    const auto tooLarge = [&path, maxBytes](const std::string& size) {
        return fail(Error::Code::Io, "cannot read " + path.string() + ": the file is " + size +
                                         ", more than the " + sizeText(maxBytes) +
                                         " a trace may have (docs/trace-format.md)");
    };
    if (std::uint64_t(info.st_size) > maxBytes) {
        ::close(fd);
        return tooLarge(std::to_string(std::uint64_t(info.st_size)) + " bytes");
    }
    // The size is a first guess (the file may change while we read, and files such as those in
    // /proc say 0): read until the end, in steps, but never past the limit.
    std::string data;
    std::size_t size = 0;
    data.resize(info.st_size > 0 ? std::size_t(info.st_size) + 1 : std::size_t(1) << 16);
    for (;;) {
        if (size == data.size()) {
            if (size > maxBytes) {
                ::close(fd);
                return tooLarge("growing past " + std::to_string(size) + " bytes");
            }
            data.resize(std::min<std::size_t>(data.size() * 2, maxBytes + 1));
        }
        const ssize_t got = ::read(fd, data.data() + size, data.size() - size);
        if (got < 0) {
            if (errno == EINTR) {
                continue;
            }
            const int error = errno;
            ::close(fd);
            return ioError(error);
        }
        if (got == 0) {
            break;
        }
        size += std::size_t(got);
    }
    ::close(fd);
    if (size > maxBytes) {
        return tooLarge("growing past " + std::to_string(size) + " bytes");
    }
    data.resize(size);
    return data;
}

} // namespace

Result<Trace> parseTrace(std::string_view json, const ReadOptions& options) {
    const TraceFormat format = detectFormat(json);
    return format == TraceFormat::SliceScope ? readTraceText(json, options)
                                             : importTrace(json, format, options);
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
    auto trace = parseTrace(*text, named);
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

} // namespace slicescope::trace
