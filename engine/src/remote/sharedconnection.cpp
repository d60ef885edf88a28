#include "slicescope/remote/sharedconnection.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <sys/stat.h>

namespace slicescope::remote {

namespace {

// A socket's name: 12 hex digits of the key, '-', and ssh's %C (40 hex digits).
constexpr std::size_t kKeyDigits = 12;
constexpr std::size_t kSocketName = kKeyDigits + 1 + 40;
// ssh binds its socket at PATH.XXXXXXXXXXXXXXXX (16 random characters) before renaming it to
// PATH = DIRECTORY/NAME, and sockaddr_un holds at most 107 characters and a NUL.
constexpr std::size_t kLongestDirectory = 107 - (1 + kSocketName + 1 + 16);

Error refused(const std::string& directory, const std::string& why) {
    return Error{Error::Code::Unsupported, "no shared ssh connection: " + directory + " " + why};
}

bool usable(const char* base) {
    if (base == nullptr || base[0] != '/') {
        return false;
    }
    const std::string_view text(base);
    return text.size() + std::string_view("/slicescope-ssh").size() <= kLongestDirectory;
}

} // namespace

bool sharingFailed(const std::vector<std::string>& sshStderr) {
    for (const auto& line : sshStderr) {
        for (const std::string_view sign :
             {"unix_listener", "ControlSocket", "ControlPath", "control socket", "mux_client",
              "muxserver", "mux_master"}) {
            if (line.find(sign) != std::string::npos) {
                return true;
            }
        }
    }
    return false;
}

Result<std::string> sharedConnectionDirectory(const char* xdgRuntimeDir, const char* tmpDir,
                                              uid_t uid) {
    std::string directory;
    if (usable(xdgRuntimeDir)) {
        directory = std::string(xdgRuntimeDir) + "/slicescope-ssh";
    } else {
        directory = std::string(usable(tmpDir) ? tmpDir : "/tmp") + "/slicescope-ssh-" +
                    std::to_string(uid);
    }
    if (directory.find('%') != std::string::npos || directory.size() > kLongestDirectory) {
        return tl::unexpected(refused(directory, "cannot be named in ssh's ControlPath"));
    }
    if (::mkdir(directory.c_str(), 0700) != 0 && errno != EEXIST) {
        return tl::unexpected(
            refused(directory, std::string("cannot be made: ") + std::strerror(errno)));
    }
    // lstat: a link planted in /tmp by someone else is not followed.
    struct stat info {};
    if (::lstat(directory.c_str(), &info) != 0) {
        return tl::unexpected(refused(directory, std::strerror(errno)));
    }
    if (!S_ISDIR(info.st_mode)) {
        return tl::unexpected(refused(directory, "is not a directory"));
    }
    if (info.st_uid != uid) {
        return tl::unexpected(refused(directory, "belongs to another user"));
    }
    if ((info.st_mode & 077) != 0) {
        return tl::unexpected(refused(directory, "can be entered by other users"));
    }
    return directory;
}

std::string sharedConnectionSocket(const std::string& directory, const std::string& key) {
    std::uint64_t hash = 14695981039346656037ull; // FNV-1a: stable from build to build
    for (const unsigned char c : key) {
        hash = (hash ^ c) * 1099511628211ull;
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string name;
    for (std::size_t digit = 0; digit < kKeyDigits; ++digit) {
        name += kHex[(hash >> (4 * digit)) & 0xf];
    }
    return directory + "/" + name + "-%C";
}

bool sharedConnectionsWanted(const char* sharedVariable) {
    return sharedVariable == nullptr || std::string_view(sharedVariable) != "0";
}

} // namespace slicescope::remote
