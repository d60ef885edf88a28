#include "slicescope/device/devicecompletion.h"

#include <cstdint>
#include <string_view>

namespace slicescope::device {

namespace {

// The CUDA C++ Programming Guide's table of technical specifications, by compute capability: the
// figures a device record may lack. Shared memory in KiB: the most an SM has, and the most one
// block may opt in to (before 7.0 no block could opt in past the default 48 KiB).
struct Documented {
    int major = 0;
    int minor = 0;
    std::uint32_t maxBlocksPerSm = 0;
    std::uint32_t registersPerSm = 0;
    std::uint32_t sharedPerSmKiB = 0;
    std::uint32_t optInKiB = 0;
};

constexpr Documented kDocumented[] = {
    {5, 0, 32, 65536, 64, 48},   {5, 2, 32, 65536, 96, 48},   {5, 3, 32, 65536, 64, 48},
    {6, 0, 32, 65536, 64, 48},   {6, 1, 32, 65536, 96, 48},   {6, 2, 32, 65536, 64, 48},
    {7, 0, 32, 65536, 96, 96},   {7, 2, 32, 65536, 96, 96},   {7, 5, 16, 65536, 64, 64},
    {8, 0, 32, 65536, 164, 163}, {8, 6, 16, 65536, 100, 99},  {8, 7, 16, 65536, 164, 163},
    {8, 9, 24, 65536, 100, 99},  {9, 0, 32, 65536, 228, 227},
};

const Documented* documented(int major, int minor) {
    for (const auto& d : kDocumented) {
        if (d.major == major && d.minor == minor) {
            return &d;
        }
    }
    return nullptr;
}

// Sets a figure the record left at 0 from `from`, and names it in `filled`.
template <typename T> void fillIfZero(T& figure, T from, std::string_view name, std::string& list) {
    if (figure == T{} && from != T{}) {
        figure = from;
        list += (list.empty() ? "" : ", ") + std::string(name);
    }
}

// The per-SM figures a record may leave at 0 (a PyTorch profiler trace gives no resident-block
// limit), from a complete device; their names in `filled`.
void fillPerSm(DeviceSpec& spec, const DeviceSpec& from, std::string& filled) {
    fillIfZero(spec.maxBlocksPerSm, from.maxBlocksPerSm, "blocks per SM", filled);
    fillIfZero(spec.registersPerSm, from.registersPerSm, "registers per SM", filled);
    fillIfZero(spec.registersPerBlock, from.registersPerBlock, "registers per block", filled);
    fillIfZero(spec.sharedMemoryPerSmBytes, from.sharedMemoryPerSmBytes, "shared memory per SM",
               filled);
    fillIfZero(spec.maxThreadsPerSm, from.maxThreadsPerSm, "threads per SM", filled);
}

// The sentence completeDeviceSpec returns; also derives the warps per SM where missing.
std::string finish(DeviceSpec& spec, std::string_view describedBy, const std::string& tail) {
    if (spec.maxWarpsPerSm == 0 && spec.warpSize > 0) {
        spec.maxWarpsPerSm = spec.maxThreadsPerSm / spec.warpSize;
    }
    return spec.name + ": figures from " + std::string(describedBy) + "; " + tail;
}

} // namespace

std::string completeDeviceSpec(DeviceSpec& spec, const std::vector<DeviceSpec>& candidates,
                               std::string_view describedBy) {
    std::string filled;
    for (const auto& c : candidates) {
        if (c.name == spec.name && c.smCount == spec.smCount &&
            c.computeMajor == spec.computeMajor && c.computeMinor == spec.computeMinor &&
            c.sharedMemoryPerBlockOptinBytes > 0) {
            fillPerSm(spec, c, filled);
            spec.sharedMemoryPerBlockOptinBytes = c.sharedMemoryPerBlockOptinBytes;
            spec.reservedSharedMemoryPerBlockBytes = c.reservedSharedMemoryPerBlockBytes;
            if (spec.memoryBandwidthGBps <= 0) {
                spec.memoryBandwidthGBps = c.memoryBandwidthGBps;
            }
            filled += std::string(filled.empty() ? "" : ", ") +
                      "opt-in and reserved shared memory per block";
            return finish(spec, describedBy,
                          filled + " from " +
                              (c.id.empty() ? std::string("the same device on this machine")
                                            : "the '" + c.id + "' preset"));
        }
    }
    const Documented* d = documented(spec.computeMajor, spec.computeMinor);
    if (d != nullptr) {
        DeviceSpec from;
        from.maxBlocksPerSm = d->maxBlocksPerSm;
        from.registersPerSm = d->registersPerSm;
        from.registersPerBlock = d->registersPerSm;
        from.sharedMemoryPerSmBytes = std::uint64_t(d->sharedPerSmKiB) * 1024;
        fillPerSm(spec, from, filled);
    }
    // Ampere and later keep 1 KB of every block's shared memory for the system (cuda_occupancy.h).
    spec.reservedSharedMemoryPerBlockBytes = spec.computeMajor >= 8 ? 1024 : 0;
    const std::uint64_t optIn = d != nullptr ? std::uint64_t(d->optInKiB) * 1024 : 0;
    spec.sharedMemoryPerBlockOptinBytes = optIn > 0 ? optIn : spec.sharedMemoryPerBlockBytes;
    filled +=
        std::string(filled.empty() ? "" : ", ") + "opt-in and reserved shared memory per block";
    return finish(spec, describedBy,
                  filled +
                      (d != nullptr
                           ? " from the CUDA Programming Guide's values for compute capability "
                           : " not known for compute capability ") +
                      spec.computeCapability() +
                      (d != nullptr ? "" : " (taken as the default per-block limit)"));
}

} // namespace slicescope::device
