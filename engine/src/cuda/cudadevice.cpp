#include "cudadevice.h"

#include "cudacheck.h"

#include <cuda_runtime_api.h>

namespace slicescope::cuda {

Result<device::DeviceSpec> describe(int ordinal) {
    cudaDeviceProp prop{};
    CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal));
    int clockKHz = 0, memoryClockKHz = 0, busWidthBits = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&clockKHz, cudaDevAttrClockRate, ordinal));
    CUDA_CHECK(cudaDeviceGetAttribute(&memoryClockKHz, cudaDevAttrMemoryClockRate, ordinal));
    CUDA_CHECK(cudaDeviceGetAttribute(&busWidthBits, cudaDevAttrGlobalMemoryBusWidth, ordinal));

    device::DeviceSpec d;
    d.name = prop.name;
    d.computeMajor = prop.major;
    d.computeMinor = prop.minor;
    d.smCount = std::uint32_t(prop.multiProcessorCount);
    d.warpSize = std::uint32_t(prop.warpSize);
    d.maxThreadsPerSm = std::uint32_t(prop.maxThreadsPerMultiProcessor);
    d.maxWarpsPerSm = d.maxThreadsPerSm / (d.warpSize ? d.warpSize : 32);
    d.maxBlocksPerSm = std::uint32_t(prop.maxBlocksPerMultiProcessor);
    d.maxThreadsPerBlock = std::uint32_t(prop.maxThreadsPerBlock);
    d.registersPerSm = std::uint32_t(prop.regsPerMultiprocessor);
    d.registersPerBlock = std::uint32_t(prop.regsPerBlock);
    d.maxRegistersPerThread = 255;
    d.sharedMemoryPerSmBytes = prop.sharedMemPerMultiprocessor;
    d.sharedMemoryPerBlockBytes = prop.sharedMemPerBlock;
    d.sharedMemoryPerBlockOptinBytes = prop.sharedMemPerBlockOptin;
    d.reservedSharedMemoryPerBlockBytes = prop.reservedSharedMemPerBlock;
    d.clockMHz = clockKHz / 1000.0;
    // Double data rate: two transfers per memory clock.
    d.memoryBandwidthGBps = 2.0 * memoryClockKHz * 1e3 * (busWidthBits / 8.0) / 1e9;
    d.globalMemoryBytes = prop.totalGlobalMem;
    const std::string source = "cudaGetDeviceProperties on this machine";
    for (const char* field :
         {"name", "computeMajor", "computeMinor", "smCount", "maxThreadsPerSm", "maxBlocksPerSm",
          "registersPerSm", "sharedMemoryPerSmBytes", "globalMemoryBytes"}) {
        d.sources[field] = source;
    }
    d.sources["clockMHz"] = "cudaDevAttrClockRate on this machine";
    d.sources["memoryBandwidthGBps"] =
        "cudaDevAttrMemoryClockRate x 2 x cudaDevAttrGlobalMemoryBusWidth on this machine";
    return d;
}

backend::DetectedDevices detect() {
    backend::DetectedDevices out;
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess) {
        out.why = std::string("no usable CUDA device: ") + cudaGetErrorName(error) + " (" +
                  cudaGetErrorString(error) + ")";
        if (error == cudaErrorInsufficientDriver) {
            out.why += "; no NVIDIA driver is loaded, or it is older than this CUDA 13 build needs";
        }
        return out;
    }
    if (count == 0) {
        out.why = "no CUDA device is present";
        return out;
    }
    for (int i = 0; i < count; ++i) {
        auto spec = describe(i);
        if (!spec) {
            out.why = "device " + std::to_string(i) + ": " + spec.error().message;
            continue;
        }
        out.devices.push_back(std::move(*spec));
    }
    if (!out.devices.empty()) {
        out.why.clear();
    }
    return out;
}

} // namespace slicescope::cuda
