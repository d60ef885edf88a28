#include "recordeddevice.h"

#include "slicescope/occupancy/occupancycalculator.h"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace slicescope::record {

device::DeviceSpec toDeviceSpec(const DeviceFrame& f) {
    device::DeviceSpec d;
    d.name = f.name;
    d.computeMajor = int(f.computeMajor);
    d.computeMinor = int(f.computeMinor);
    d.smCount = f.smCount;
    d.warpSize = f.threadsPerWarp;
    d.maxWarpsPerSm = f.maxWarpsPerSm;
    d.maxThreadsPerSm = f.maxWarpsPerSm * f.threadsPerWarp;
    d.maxBlocksPerSm = f.maxBlocksPerSm;
    d.maxThreadsPerBlock = f.maxThreadsPerBlock;
    d.registersPerSm = f.maxRegistersPerSm;
    d.registersPerBlock = f.maxRegistersPerBlock;
    d.maxRegistersPerThread = 255;
    d.sharedMemoryPerSmBytes = f.maxSharedMemoryPerSmBytes;
    d.sharedMemoryPerBlockBytes = f.maxSharedMemoryPerBlockBytes;
    d.clockMHz = f.coreClockKHz / 1000.0;
    d.memoryBandwidthGBps = double(f.globalMemoryBandwidthKBps) * 1e3 / 1e9;
    d.globalMemoryBytes = f.globalMemoryBytes;
    return d;
}

namespace {

// The CUDA C++ Programming Guide's table of technical specifications: the most shared memory a
// block may opt in to, by compute capability, in bytes. 0: not listed here.
std::uint64_t documentedOptInBytes(int major, int minor) {
    switch (major * 10 + minor) {
    case 70:
        return 96 * 1024;
    case 72:
        return 96 * 1024;
    case 75:
        return 64 * 1024;
    case 80:
        return 163 * 1024;
    case 86:
        return 99 * 1024;
    case 87:
        return 163 * 1024;
    case 89:
        return 99 * 1024;
    case 90:
        return 227 * 1024;
    default:
        return 0;
    }
}

} // namespace

std::string completeDeviceSpec(device::DeviceSpec& spec,
                               const std::vector<device::DeviceSpec>& candidates) {
    for (const auto& c : candidates) {
        if (c.name == spec.name && c.smCount == spec.smCount &&
            c.computeMajor == spec.computeMajor && c.computeMinor == spec.computeMinor &&
            c.sharedMemoryPerBlockOptinBytes > 0) {
            spec.sharedMemoryPerBlockOptinBytes = c.sharedMemoryPerBlockOptinBytes;
            spec.reservedSharedMemoryPerBlockBytes = c.reservedSharedMemoryPerBlockBytes;
            if (spec.memoryBandwidthGBps <= 0) {
                spec.memoryBandwidthGBps = c.memoryBandwidthGBps;
            }
            return spec.name +
                   ": figures from CUPTI's device record; opt-in and reserved shared memory per "
                   "block from " +
                   (c.id.empty() ? std::string("the same device on the recording machine")
                                 : "the '" + c.id + "' preset");
        }
    }
    // Ampere and later keep 1 KB of every block's shared memory for the system (cuda_occupancy.h).
    spec.reservedSharedMemoryPerBlockBytes = spec.computeMajor >= 8 ? 1024 : 0;
    const std::uint64_t optIn = documentedOptInBytes(spec.computeMajor, spec.computeMinor);
    spec.sharedMemoryPerBlockOptinBytes = optIn > 0 ? optIn : spec.sharedMemoryPerBlockBytes;
    return spec.name +
           ": figures from CUPTI's device record; opt-in and reserved shared memory per block " +
           (optIn > 0
                ? std::string("from the CUDA Programming Guide's values for compute capability ")
                : std::string("not known for compute capability ")) +
           spec.computeCapability() + (optIn > 0 ? "" : " (taken as the default per-block limit)");
}

OccupancyTally
applyTheoreticalOccupancy(trace::Run& run, const std::vector<KernelLaunch>& kernels,
                          const std::map<std::uint32_t, device::DeviceSpec>& devices) {
    OccupancyTally tally;
    using Key = std::tuple<std::uint32_t, std::uint32_t, std::uint32_t, std::uint64_t>;
    std::map<Key, float> cache;
    for (const auto& k : kernels) {
        trace::Activity& a = run.activities[k.activity];
        auto device = devices.find(k.deviceId);
        if (device == devices.end()) {
            ++tally.failed;
            if (tally.firstFailure.empty()) {
                tally.firstFailure = "no properties for device " + std::to_string(k.deviceId);
            }
            continue;
        }
        const std::uint64_t blockSize = std::uint64_t(a.block.x) * a.block.y * a.block.z;
        const std::uint64_t shared = std::uint64_t(a.staticSharedBytes) + a.dynamicSharedBytes;
        const Key key{k.deviceId, std::uint32_t(std::min<std::uint64_t>(blockSize, 1u << 31)),
                      a.registersPerThread, shared};
        auto cached = cache.find(key);
        if (cached == cache.end()) {
            occupancy::KernelResources resources;
            resources.blockSize = std::get<1>(key);
            resources.registersPerThread = a.registersPerThread;
            resources.sharedMemoryPerBlockBytes = shared;
            // A launch with more than the default limit ran, so the kernel had opted in.
            resources.sharedMemoryOptIn = shared > device->second.sharedMemoryPerBlockBytes;
            auto result = occupancy::calculate(device->second, resources);
            float value = trace::kNoValue;
            if (result) {
                value = float(result->occupancy);
            } else if (tally.firstFailure.empty()) {
                tally.firstFailure = result.error().message;
            }
            cached = cache.emplace(key, value).first;
        }
        if (std::isnan(cached->second)) {
            ++tally.failed;
        } else {
            a.theoreticalOccupancy = cached->second;
            ++tally.computed;
        }
    }
    return tally;
}

} // namespace slicescope::record
