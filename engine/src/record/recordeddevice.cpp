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
