#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "slicescope/core/result.h"
#include "slicescope/device/devicespec.h"

namespace slicescope::occupancy {

// What stops more blocks from being resident on one SM.
enum class Limiter { Warps, Blocks, Registers, SharedMemory };
std::string_view toString(Limiter limiter); // "warps", "blocks", "registers", "shared-memory"

struct KernelResources {
    std::uint32_t blockSize = 0;           // threads per block, 1..1024
    std::uint32_t registersPerThread = 0;  // 0..255
    std::uint64_t sharedMemoryPerBlockBytes = 0; // static + dynamic
};

struct OccupancyResult {
    std::uint32_t activeBlocksPerSm = 0;
    std::uint32_t activeWarpsPerSm = 0;
    double occupancy = 0; // active warps / max warps per SM, 0..1
    Limiter limiter = Limiter::Warps;
    std::string explanation; // one sentence, e.g. "Registers limit each SM to 1 block: ..."
    // The bound each resource sets on blocks per SM (before taking the minimum).
    std::uint32_t blocksLimitedByWarps = 0;
    std::uint32_t blocksLimitedByBlocks = 0;
    std::uint32_t blocksLimitedByRegisters = 0;
    std::uint32_t blocksLimitedBySharedMemory = 0;
};

// Theoretical occupancy, by the algorithm of NVIDIA's cuda_occupancy.h. A configuration that
// cannot launch gives 0 blocks and says why; input outside the hardware's range is an error.
Result<OccupancyResult> calculate(const device::DeviceSpec& device,
                                  const KernelResources& kernel);

} // namespace slicescope::occupancy
