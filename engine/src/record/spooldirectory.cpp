#include "spooldirectory.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace slicescope::record {

namespace {
constexpr std::string_view kSpoolFolderPrefix = "slicescope-record-";

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

Result<std::filesystem::path> makeSpoolFolder(const std::filesystem::path& base) {
    std::string pattern =
        (base / (std::string(kSpoolFolderPrefix) + std::to_string(::getpid()) + "-XXXXXX"))
            .string();
    if (::mkdtemp(pattern.data()) == nullptr) {
        return fail(Error::Code::Io, "cannot create a spool directory in " + base.string() + ": " +
                                         std::strerror(errno));
    }
    return std::filesystem::path(pattern);
}

std::size_t removeStaleSpoolFolders(const std::filesystem::path& base) {
    std::size_t removed = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(base, error)) {
        const std::string name = entry.path().filename().string();
        if (name.compare(0, kSpoolFolderPrefix.size(), kSpoolFolderPrefix) != 0) {
            continue;
        }
        const char* digits = name.c_str() + kSpoolFolderPrefix.size();
        char* end = nullptr;
        const long pid = std::strtol(digits, &end, 10);
        if (end == digits || *end != '-' || pid <= 0 || pid == long(::getpid())) {
            continue;
        }
        // Only this user's real folders: never a link, never another user's spools (root
        // included). A live owner, even one whose pid was reused, keeps its folder.
        struct stat st {};
        if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) ||
            st.st_uid != ::geteuid()) {
            continue;
        }
        if (::kill(pid_t(pid), 0) == 0 || errno != ESRCH) {
            continue;
        }
        std::error_code removeError;
        if (std::filesystem::remove_all(entry.path(), removeError) > 0 && !removeError) {
            ++removed;
        }
    }
    return removed;
}

} // namespace slicescope::record
