// The slicescope-trace JSON format (docs/trace-format.md): file handling around the reader
// (tracereader.cpp) and the writer (tracewriter.cpp).
#include "slicescope/trace/tracejson.h"

#include "slicescope/trace/atomicfile.h"
#include "tracereader.h"
#include "tracewriter.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace slicescope::trace {

namespace {

Result<std::string> readWholeFile(const std::filesystem::path& path) {
    const auto ioError = [&path](int error) {
        return fail(Error::Code::Io, "cannot read " + path.string() + ": " + std::strerror(error));
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return ioError(errno);
    }
    struct stat info {};
    if (::fstat(fd, &info) != 0) {
        const int error = errno;
        ::close(fd);
        return ioError(error);
    }
    if (S_ISDIR(info.st_mode)) {
        ::close(fd);
        return ioError(EISDIR);
    }
    // The size is a first guess (the file may change while we read, or be a pipe): read until
    // the end, in steps.
    std::string data;
    std::size_t size = 0;
    data.resize(S_ISREG(info.st_mode) && info.st_size > 0 ? std::size_t(info.st_size) + 1
                                                          : 1 << 16);
    for (;;) {
        if (size == data.size()) {
            data.resize(data.size() * 2);
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
    data.resize(size);
    return data;
}

} // namespace

Result<Trace> parseTrace(std::string_view json, const ReadOptions& options) {
    return readTraceText(json, options);
}

Result<Trace> readTrace(const std::filesystem::path& path, const ReadOptions& options) {
    auto text = readWholeFile(path);
    if (!text) {
        return tl::unexpected(text.error());
    }
    auto trace = parseTrace(*text, options);
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

Status writeTrace(const Trace& trace, const std::filesystem::path& path) {
    if (auto readable = checkReadsBack(trace); !readable) {
        return fail(readable.error().code,
                    "cannot write " + path.string() + ": " + readable.error().message);
    }
    return writeFileAtomically(path, [&trace](std::ostream& stream) {
        std::string buffer;
        buffer.reserve((std::size_t(1) << 20) + 65536);
        writeTraceText(trace, buffer, [&stream](std::string& text) {
            stream.write(text.data(), std::streamsize(text.size()));
            text.clear();
        });
    });
}

} // namespace slicescope::trace
