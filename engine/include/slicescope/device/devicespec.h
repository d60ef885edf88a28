#pragma once

#include "slicescope/core/result.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::device {

// One GPU's figures: a preset from resources/devices.json, or a device found at run time.
struct DeviceSpec {
    std::string id;   // preset key, e.g. "h200"; empty for a detected device
    std::string name; // "NVIDIA H200"
    int computeMajor = 0;
    int computeMinor = 0;
    std::uint32_t smCount = 0;

    // Per-SM and per-block limits (cudaDeviceProp names in comments).
    std::uint32_t warpSize = 32;
    std::uint32_t maxThreadsPerSm = 0;       // maxThreadsPerMultiProcessor
    std::uint32_t maxWarpsPerSm = 0;         // maxThreadsPerMultiProcessor / warpSize
    std::uint32_t maxBlocksPerSm = 0;        // maxBlocksPerMultiProcessor
    std::uint32_t maxThreadsPerBlock = 1024; // maxThreadsPerBlock
    std::uint32_t registersPerSm = 0;        // regsPerMultiprocessor
    std::uint32_t registersPerBlock = 0;     // regsPerBlock
    std::uint32_t maxRegistersPerThread = 255;
    std::uint64_t sharedMemoryPerSmBytes = 0;            // sharedMemPerMultiprocessor
    std::uint64_t sharedMemoryPerBlockBytes = 0;         // sharedMemPerBlock (default limit)
    std::uint64_t sharedMemoryPerBlockOptinBytes = 0;    // sharedMemPerBlockOptin
    std::uint64_t reservedSharedMemoryPerBlockBytes = 0; // reservedSharedMemPerBlock

    double clockMHz = 0;            // SM boost clock
    double memoryBandwidthGBps = 0; // device memory, peak
    std::uint64_t globalMemoryBytes = 0;
    double pageableHtoDGBps = 0; // host link, pageable host memory
    double pageableDtoHGBps = 0;
    double pinnedHtoDGBps = 0; // host link, pinned host memory
    double pinnedDtoHGBps = 0;
    // Arithmetic throughput, FMA results per clock per SM (0 = unknown). Preset figures only: a
    // trace's device object does not carry them (engine/src/device/devicejson.cpp).
    double fp32FmaPerSmPerClock = 0;
    double fp64FmaPerSmPerClock = 0;
    // L2 cache capacity: whether a kernel's data stays in L2 or its misses go to DRAM (the model).
    // Preset figure only, like the FMA rates.
    std::uint64_t l2CacheBytes = 0;

    // Where each figure came from, by JSON key ("sm_count": "NVIDIA H200 datasheet"); a figure that
    // is not from a datasheet, guide or measurement says "estimate: ..." and how it was made.
    std::map<std::string, std::string> sources;

    bool runnableWithCuda13() const { return computeMajor * 10 + computeMinor >= 75; }
    std::string computeCapability() const; // "9.0"
};

// The presets compiled into the program from resources/devices.json.
const std::vector<DeviceSpec>& presets();
Result<DeviceSpec> findPreset(std::string_view id);
// Parses a presets document; every preset must carry every figure and its source.
Result<std::vector<DeviceSpec>> parsePresets(std::string_view json);

// One device as a JSON object text (snake_case keys, as in trace files); sources only when asked.
// engine/src/device/devicejson.h has the nlohmann::json form for engine code.
std::string toJson(const DeviceSpec& device, bool withSources = false);

} // namespace slicescope::device
