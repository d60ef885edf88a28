#pragma once

// The libFuzzer entry point around one of fuzzchecks.h's checks: a failed property aborts, so
// libFuzzer keeps the input as a crash artifact.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace slicescope::fuzz {

inline int runCheck(std::string (*check)(std::string_view), const std::uint8_t* data,
                    std::size_t size) {
    const std::string failure = check(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!failure.empty()) {
        std::fprintf(stderr, "slicescope fuzz check failed: %s\n", failure.c_str());
        std::abort();
    }
    return 0;
}

} // namespace slicescope::fuzz
