#include "residentmemory.h"

#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace slicescope::bench {

std::uint64_t residentBytes() {
    std::FILE* file = std::fopen("/proc/self/statm", "r");
    if (!file) {
        return 0;
    }
    unsigned long long size = 0, resident = 0;
    const int fields = std::fscanf(file, "%llu %llu", &size, &resident);
    std::fclose(file);
    return fields == 2 ? std::uint64_t(resident) * std::uint64_t(::sysconf(_SC_PAGESIZE)) : 0;
}

std::uint64_t peakResidentBytes() {
    std::FILE* file = std::fopen("/proc/self/status", "r");
    if (!file) {
        return 0;
    }
    char line[256];
    std::uint64_t kib = 0;
    while (std::fgets(line, sizeof line, file)) {
        unsigned long long value = 0;
        if (std::strncmp(line, "VmHWM:", 6) == 0 && std::sscanf(line + 6, "%llu", &value) == 1) {
            kib = value;
            break;
        }
    }
    std::fclose(file);
    return kib * 1024;
}

} // namespace slicescope::bench
