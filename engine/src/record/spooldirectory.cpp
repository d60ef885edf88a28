#include "spooldirectory.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace slicescope::record {

namespace {
bool isSpool(const std::filesystem::path& path) {
    const std::string name = path.filename().string();
    return name.size() > kSpoolSuffix.size() &&
           name.compare(name.size() - kSpoolSuffix.size(), kSpoolSuffix.size(), kSpoolSuffix) == 0;
}
} // namespace

bool SpoolDirectory::readSome(ProcessSpool& process, const Sink& sink, std::uint64_t maxBytes) {
    std::ifstream in(process.path, std::ios::binary);
    if (!in) {
        process.readError = std::strerror(errno);
        return false;
    }
    in.seekg(std::streamoff(process.bytesRead));
    std::string chunk(std::size_t(std::min<std::uint64_t>(maxBytes, std::uint64_t(1) << 20)), '\0');
    std::uint64_t got = 0;
    bool more = false;
    while (got < maxBytes) {
        in.read(chunk.data(), std::streamsize(chunk.size()));
        const auto n = std::size_t(in.gcount());
        if (n == 0) {
            break;
        }
        process.bytesRead += n;
        got += n;
        process.decoder.feed(std::string_view(chunk.data(), n));
        while (auto frame = process.decoder.next()) {
            if (frame->type == FrameType::Begin) {
                process.begin = frame->begin;
            } else if (frame->type == FrameType::End) {
                process.end = frame->end;
            } else if (frame->type == FrameType::Stats) {
                process.stats = frame->stats;
            }
            sink(process, *frame);
        }
        if (n < chunk.size()) {
            break;
        }
        more = got >= maxBytes;
    }
    return more;
}

void SpoolDirectory::poll(const Sink& sink, std::uint64_t maxBytesPerFile) {
    std::error_code ec;
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(directory_, ec)) {
        if (entry.is_regular_file(ec) && isSpool(entry.path())) {
            found.push_back(entry.path());
        }
    }
    std::sort(found.begin(), found.end());
    for (const auto& path : found) {
        const bool known = std::any_of(processes_.begin(), processes_.end(),
                                       [&](const auto& p) { return p->path == path; });
        if (!known) {
            auto process = std::make_unique<ProcessSpool>();
            process->path = path;
            process->index = processes_.size();
            processes_.push_back(std::move(process));
        }
    }
    for (auto& process : processes_) {
        if (process->decoder.state() == SpoolDecoder::State::Ok) {
            readSome(*process, sink, maxBytesPerFile);
        }
    }
}

void SpoolDirectory::readAll(const Sink& sink) {
    poll(sink);
    for (auto& process : processes_) {
        while (process->decoder.state() == SpoolDecoder::State::Ok &&
               readSome(*process, sink, std::uint64_t(64) << 20)) {
        }
    }
}

} // namespace slicescope::record
