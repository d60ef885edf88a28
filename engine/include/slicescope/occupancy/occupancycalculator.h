#pragma once

#include "slicescope/core/result.h"
#include "slicescope/device/devicespec.h"

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace slicescope::occupancy {

// What stops more blocks from being resident on one SM.
enum class Limiter { Warps, Blocks, Registers, SharedMemory };
std::string_view toString(Limiter limiter); // "warps", "blocks", "registers", "shared-memory"

struct KernelResources {
    std::uint32_t blockSize = 0;                 // threads per block, 1..1024
    std::uint32_t registersPerThread = 0;        // 0..255; 0 = not known, counted as using none
    std::uint64_t sharedMemoryPerBlockBytes = 0; // static + dynamic
    // The kernel raised its shared-memory limit (cudaFuncAttributeMaxDynamicSharedMemorySize) to
    // the device's opt-in maximum. Without it a block gets the device's default per-block limit
    // (DeviceSpec::sharedMemoryPerBlockBytes, 48 KB), as a kernel with default attributes does.
    bool sharedMemoryOptIn = false;
};

// A bound a resource does not set (no registers or no shared memory used).
inline constexpr std::uint32_t kUnlimitedBlocks = std::numeric_limits<std::uint32_t>::max();

struct OccupancyResult {
    std::uint32_t activeBlocksPerSm = 0;
    std::uint32_t activeWarpsPerSm = 0;
    double occupancy = 0; // active warps / max warps per SM, 0..1
    Limiter limiter = Limiter::Warps;
    std::string explanation; // one sentence, e.g. "Registers limit each SM to 1 block: ..."
    // The bound each resource sets on blocks per SM (before taking the minimum); kUnlimitedBlocks
    // where the resource sets none.
    std::uint32_t blocksLimitedByWarps = 0;
    std::uint32_t blocksLimitedByBlocks = 0;
    std::uint32_t blocksLimitedByRegisters = 0;
    std::uint32_t blocksLimitedBySharedMemory = 0;
    // Every resource whose bound equals activeBlocksPerSm; `limiter` is the first of them.
    std::vector<Limiter> limiters;
    std::uint32_t warpsPerBlock = 0;
    std::uint32_t maxWarpsPerSm = 0;
    std::uint32_t allocatedRegistersPerBlock = 0; // as allocated: whole warps, 256-register units
    std::uint64_t allocatedSharedMemoryPerBlockBytes = 0; // with the per-block reserve, rounded up
    std::uint64_t sharedMemoryPerSmBytes = 0;             // the L1/shared split the launch gets
};

// Theoretical occupancy, by the algorithm of NVIDIA's cuda_occupancy.h. A configuration that
// cannot launch gives 0 blocks and says why; input outside the hardware's range is an error.
Result<OccupancyResult> calculate(const device::DeviceSpec& device, const KernelResources& kernel);

} // namespace slicescope::occupancy
