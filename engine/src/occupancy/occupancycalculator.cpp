#include "slicescope/occupancy/occupancycalculator.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <span>

// Theoretical occupancy as the CUDA runtime computes it for a kernel launched with default
// attributes: cudaOccupancyMaxActiveBlocksPerMultiprocessor, whose algorithm NVIDIA publishes in
// cuda_occupancy.h (cudaOccMaxActiveBlocksPerMultiprocessor). This is our own implementation of
// that algorithm; tests/engine/tst_occupancy_reference.cpp checks it against the header over a
// sweep of block sizes, registers and shared memory for every architecture we describe, and
// tst_occupancy against the runtime's own answers recorded on the lent H200 (tests/data/occupancy).
//
// Blocks per SM are the least of four bounds:
//   warps          warp slots per SM / warps per block (a partial warp takes a whole slot);
//   blocks         the architecture's resident-block limit;
//   registers      registers go to warps in units of 256, and each of the SM's sub-partitions
//                  (warp schedulers) holds its own quarter of the register file;
//   shared memory  each block's bytes plus a per-block system reserve, rounded to the allocation
//                  unit, out of the L1/shared split the driver picks.
// The header also has a barrier bound (Hopper: 2 barriers per resident block, a kernel uses 1 by
// default, so never lower than the block bound), a virtual-resource bound (Blackwell only) and
// partitioned global caching (off unless a caller asks for it): none of them binds a
// default-attribute launch on the architectures below, so they are left out.

namespace slicescope::occupancy {

namespace {

constexpr std::uint32_t kRegisterAllocationUnit = 256; // registers, per warp; every cc so far
constexpr std::uint32_t kMaxBlockSize = 1024;
constexpr std::uint32_t kMaxRegistersPerThread = 255;

// How one architecture allocates. cc 7.x to 9.0: the constants of cuda_occupancy.h (CUDA 13.0).
// cc 3.x, 5.x, 6.x: the per-architecture constants of the CUDA Occupancy Calculator spreadsheet
// ("GPU Data" sheet: 256-byte shared-memory and 256-register-per-warp allocation units) and the
// programming guide (a fixed shared-memory size per SM, no carveout; Kepler's default cache
// split leaves all 48 KB to shared memory), which cuda_occupancy.h still carries as well. The
// per-SM limits themselves (warps, blocks, registers, bytes) come from the DeviceSpec.
struct Architecture {
    int major = 0;
    int minor = -1; // -1: every minor of `major` not listed before it
    std::uint32_t sharedAllocationUnitBytes = 0;
    std::uint32_t registerSubPartitions = 0;
    // Shared-memory sizes the L1/shared split can take, in KiB, smallest first; the driver rounds
    // the wanted size up to one of them. Empty: shared memory per SM is fixed.
    std::span<const std::uint32_t> carveoutsKiB;
    // GP100 (2 sub-partitions): the runtime refuses a launch that GP10x (4) could not run, so
    // code built for Pascal runs on every Pascal part.
    bool mustAlsoFitFourSubPartitions = false;
};

constexpr std::array<std::uint32_t, 6> kVoltaCarveouts = {0, 8, 16, 32, 64, 96};
constexpr std::array<std::uint32_t, 2> kTuringCarveouts = {32, 64};
constexpr std::array<std::uint32_t, 8> kGa100Carveouts = {0, 8, 16, 32, 64, 100, 132, 164};
constexpr std::array<std::uint32_t, 6> kGa10xCarveouts = {0, 8, 16, 32, 64, 100};
constexpr std::array<std::uint32_t, 10> kHopperCarveouts = {0,   8,   16,  32,  64,
                                                            100, 132, 164, 196, 228};

constexpr Architecture kArchitectures[] = {
    {3, -1, 256, 4, {}, false},              // Kepler
    {5, -1, 256, 4, {}, false},              // Maxwell
    {6, 0, 256, 2, {}, true},                // Pascal GP100
    {6, -1, 256, 4, {}, false},              // Pascal GP10x
    {7, 5, 256, 4, kTuringCarveouts, false}, // Turing
    {7, -1, 256, 4, kVoltaCarveouts, false}, // Volta, Xavier
    {8, 0, 128, 4, kGa100Carveouts, false},  // Ampere GA100
    {8, 7, 128, 4, kGa100Carveouts, false},  // Ampere GA10B (Orin)
    {8, -1, 128, 4, kGa10xCarveouts, false}, // Ampere GA10x, Ada
    {9, 0, 128, 4, kHopperCarveouts, false}, // Hopper
};

const Architecture* findArchitecture(int major, int minor) {
    for (const auto& a : kArchitectures) {
        if (a.major == major && (a.minor == minor || a.minor == -1)) {
            return &a;
        }
    }
    return nullptr;
}

std::uint64_t roundUp(std::uint64_t value, std::uint64_t unit) {
    return (value + unit - 1) / unit * unit;
}
std::uint32_t ceilDiv(std::uint32_t value, std::uint32_t divisor) {
    return (value + divisor - 1) / divisor;
}
std::uint32_t clampToBlocks(std::uint64_t value) {
    return std::uint32_t(std::min<std::uint64_t>(value, kUnlimitedBlocks));
}

// The carveout the driver picks for `bytes` of shared memory: the smallest size that holds it.
Result<std::uint64_t> carveoutFor(const Architecture& arch, std::uint64_t bytes,
                                  const device::DeviceSpec& device) {
    for (const std::uint32_t kib : arch.carveoutsKiB) {
        if (bytes <= std::uint64_t(kib) * 1024) {
            return std::uint64_t(kib) * 1024;
        }
    }
    return fail(Error::Code::InvalidArgument,
                device.name + ": " + std::to_string(bytes) +
                    " bytes of shared memory per SM is more than compute capability " +
                    device.computeCapability() + " can configure");
}

std::string percentText(double fraction) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", fraction * 100);
    std::string s = text;
    while (s.back() == '0') {
        s.pop_back();
    }
    if (s.back() == '.') {
        s.pop_back();
    }
    return s;
}

std::string plural(std::uint64_t n, const char* singular, const char* pluralForm) {
    return std::to_string(n) + " " + (n == 1 ? singular : pluralForm);
}

struct RegisterBound {
    std::uint32_t blocks = 0;
    std::uint32_t perWarp = 0;          // allocated per warp
    std::uint32_t perBlock = 0;         // allocated per block
    std::uint32_t hardwarePerBlock = 0; // as the launch check counts them
    std::uint32_t hardwareWarps = 0;
};

RegisterBound registerBound(const device::DeviceSpec& device, std::uint32_t subPartitions,
                            std::uint32_t registers, std::uint32_t warpsPerBlock) {
    RegisterBound r;
    r.perWarp = std::uint32_t(roundUp(registers * device.warpSize, kRegisterAllocationUnit));
    r.perBlock = r.perWarp * warpsPerBlock;
    // The launch check assumes every sub-partition receives the same number of the block's
    // warps, so it counts the warps rounded up to a multiple of the sub-partitions.
    r.hardwareWarps = std::uint32_t(roundUp(warpsPerBlock, subPartitions));
    r.hardwarePerBlock = r.perWarp * r.hardwareWarps;
    if (r.hardwarePerBlock > device.registersPerBlock || r.perBlock > device.registersPerBlock) {
        r.blocks = 0;
    } else if (r.perWarp == 0) {
        r.blocks = kUnlimitedBlocks;
    } else {
        const std::uint32_t warpsPerSubPartition =
            device.registersPerSm / subPartitions / r.perWarp;
        r.blocks = warpsPerSubPartition * subPartitions / warpsPerBlock;
    }
    return r;
}

struct SharedBound {
    std::uint32_t blocks = 0;
    std::uint64_t perBlock = 0;   // allocated: request + reserve, rounded to the unit
    std::uint64_t perSm = 0;      // the split the launch gets
    std::uint64_t blockLimit = 0; // the most a block may ask for
    bool needsOptIn = false;
};

Result<SharedBound> sharedBound(const device::DeviceSpec& device, const Architecture& arch,
                                const KernelResources& kernel) {
    SharedBound s;
    const bool canOptIn = device.computeMajor >= 7;
    const std::uint64_t reserve = device.reservedSharedMemoryPerBlockBytes;
    const std::uint64_t defaultLimit = device.sharedMemoryPerBlockBytes;
    const std::uint64_t optInLimit = device.sharedMemoryPerBlockOptinBytes;
    // A kernel's dynamic shared memory may not exceed its own limit: the default per-block size,
    // or the opt-in maximum once the kernel has raised it.
    s.blockLimit = kernel.sharedMemoryOptIn && canOptIn ? optInLimit : defaultLimit;
    s.needsOptIn = canOptIn && !kernel.sharedMemoryOptIn &&
                   kernel.sharedMemoryPerBlockBytes > defaultLimit &&
                   kernel.sharedMemoryPerBlockBytes <= optInLimit;
    // Saturated so that an absurd request still reads as "cannot launch", not as a wrapped sum.
    const std::uint64_t asked =
        std::min<std::uint64_t>(kernel.sharedMemoryPerBlockBytes, 1ull << 48);
    s.perBlock = roundUp(asked + reserve, arch.sharedAllocationUnitBytes);

    // The device's own per-block ceiling, reserve included from Ampere on. A kernel whose limit
    // (plus reserve) passes the default size is measured against the opt-in ceiling.
    std::uint64_t ceiling = defaultLimit;
    if (canOptIn && s.blockLimit + reserve > defaultLimit) {
        ceiling = optInLimit;
    }
    if (device.computeMajor >= 8) {
        ceiling += reserve;
    }
    const bool launchable = asked <= s.blockLimit && s.perBlock <= ceiling;

    if (arch.carveoutsKiB.empty()) {
        s.perSm = device.sharedMemoryPerSmBytes;
    } else {
        // The default carveout asks for all of the SM's shared memory; the driver rounds up to a
        // size the split can take, and grows it further if one block would not fit.
        auto preferred = carveoutFor(arch, device.sharedMemoryPerSmBytes, device);
        if (!preferred) {
            return tl::unexpected(preferred.error());
        }
        s.perSm = *preferred;
        if (launchable && s.perSm < s.perBlock) {
            auto grown = carveoutFor(arch, s.perBlock, device);
            if (!grown) {
                return tl::unexpected(grown.error());
            }
            s.perSm = *grown;
        }
    }

    if (!launchable) {
        s.blocks = 0;
    } else if (s.perBlock == 0) {
        s.blocks = kUnlimitedBlocks;
    } else {
        s.blocks = clampToBlocks(s.perSm / s.perBlock);
    }
    return s;
}

std::string cannotLaunch(const device::DeviceSpec& device, const KernelResources& kernel,
                         Limiter limiter, const RegisterBound& regs, const SharedBound& shared) {
    const std::string threads = plural(kernel.blockSize, "thread", "threads");
    if (limiter == Limiter::Registers) {
        return std::to_string(kernel.registersPerThread) + " registers x " + threads +
               " cannot launch: a block would need " + std::to_string(regs.hardwarePerBlock) +
               " registers as the hardware allocates them (" + std::to_string(regs.perWarp) +
               " per warp x " + std::to_string(regs.hardwareWarps) + " warps), more than the " +
               std::to_string(device.registersPerBlock) + " one block may use (0 blocks per SM).";
    }
    const std::string bytes = std::to_string(kernel.sharedMemoryPerBlockBytes) +
                              " bytes of shared memory per block cannot launch";
    if (shared.needsOptIn) {
        return bytes + " without opting in: a kernel gets " +
               std::to_string(device.sharedMemoryPerBlockBytes) +
               " bytes unless it raises its limit (cudaFuncAttributeMaxDynamicSharedMemorySize) "
               "to at most " +
               std::to_string(device.sharedMemoryPerBlockOptinBytes) + " (0 blocks per SM).";
    }
    if (kernel.sharedMemoryPerBlockBytes > shared.blockLimit) {
        return bytes + ": a block may use at most " + std::to_string(shared.blockLimit) +
               " bytes on " + device.name + " (0 blocks per SM).";
    }
    return bytes + ": with the per-block reserve and allocation unit it takes " +
           std::to_string(shared.perBlock) + " bytes, more than a block may have on " +
           device.name + " (0 blocks per SM).";
}

std::string explain(const device::DeviceSpec& device, const KernelResources& kernel,
                    const OccupancyResult& r, const RegisterBound& regs,
                    const SharedBound& shared) {
    if (r.activeBlocksPerSm == 0) {
        return cannotLaunch(device, kernel, r.limiter, regs, shared);
    }
    const std::string each = plural(r.activeBlocksPerSm, "block", "blocks") + " of " +
                             plural(kernel.blockSize, "thread", "threads");
    const std::string outcome = ": " + std::to_string(r.activeWarpsPerSm) + " of " +
                                std::to_string(r.maxWarpsPerSm) + " warps, a per-SM limit of " +
                                percentText(r.occupancy) + " % (CUDA's theoretical occupancy).";
    switch (r.limiter) {
    case Limiter::Warps:
        return "Warps limit each SM to " + each + " (" + plural(r.warpsPerBlock, "warp", "warps") +
               " each, " + std::to_string(r.maxWarpsPerSm) + " warp slots per SM)" + outcome;
    case Limiter::Blocks:
        return "The limit of " + std::to_string(device.maxBlocksPerSm) +
               " resident blocks per SM caps each SM at " + each + outcome;
    case Limiter::Registers: {
        const std::uint64_t asked = std::uint64_t(kernel.registersPerThread) * kernel.blockSize;
        std::string detail = std::to_string(kernel.registersPerThread) + " registers x " +
                             plural(kernel.blockSize, "thread", "threads");
        detail += asked == regs.perBlock ? " = " : ", allocated as ";
        return "Registers limit each SM to " + each + " (" + detail +
               std::to_string(regs.perBlock) + " of " + std::to_string(device.registersPerSm) +
               ")" + outcome;
    }
    case Limiter::SharedMemory: {
        std::string detail = std::to_string(kernel.sharedMemoryPerBlockBytes) + " bytes";
        if (device.reservedSharedMemoryPerBlockBytes > 0) {
            detail +=
                " + " + std::to_string(device.reservedSharedMemoryPerBlockBytes) + " reserved";
        }
        detail += shared.perBlock == kernel.sharedMemoryPerBlockBytes +
                                         device.reservedSharedMemoryPerBlockBytes
                      ? " = "
                      : ", allocated as ";
        return "Shared memory limits each SM to " + each + " (" + detail +
               std::to_string(shared.perBlock) + " of " + std::to_string(shared.perSm) + " bytes)" +
               outcome;
    }
    }
    return {};
}

} // namespace

std::string_view toString(Limiter limiter) {
    switch (limiter) {
    case Limiter::Warps:
        return "warps";
    case Limiter::Blocks:
        return "blocks";
    case Limiter::Registers:
        return "registers";
    case Limiter::SharedMemory:
        return "shared-memory";
    }
    return "warps";
}

Result<OccupancyResult> calculate(const device::DeviceSpec& device, const KernelResources& kernel) {
    const Architecture* arch = findArchitecture(device.computeMajor, device.computeMinor);
    if (arch == nullptr) {
        return fail(Error::Code::Unsupported,
                    "no occupancy rules for compute capability " + device.computeCapability() +
                        " (" + device.name + "); SliceScope knows 3.x, 5.x, 6.x, 7.x, 8.x and 9.0");
    }
    if (device.warpSize == 0 || device.maxThreadsPerSm < device.warpSize ||
        device.maxBlocksPerSm == 0 || device.maxThreadsPerBlock == 0 ||
        device.registersPerSm == 0 || device.registersPerBlock == 0 ||
        device.sharedMemoryPerSmBytes == 0 || device.sharedMemoryPerBlockBytes == 0) {
        return fail(Error::Code::InvalidArgument,
                    device.name + " lacks the per-SM limits the occupancy calculator needs");
    }
    const std::uint32_t maxBlockSize = std::min(kMaxBlockSize, device.maxThreadsPerBlock);
    if (kernel.blockSize < 1 || kernel.blockSize > maxBlockSize) {
        return fail(Error::Code::OutOfRange, "block size must be from 1 to " +
                                                 std::to_string(maxBlockSize) + " threads on " +
                                                 device.name + " (got " +
                                                 std::to_string(kernel.blockSize) + ")");
    }
    const std::uint32_t maxRegisters =
        device.maxRegistersPerThread == 0
            ? kMaxRegistersPerThread
            : std::min(kMaxRegistersPerThread, device.maxRegistersPerThread);
    if (kernel.registersPerThread > maxRegisters) {
        return fail(Error::Code::OutOfRange, "registers per thread must be from 0 to " +
                                                 std::to_string(maxRegisters) + " on " +
                                                 device.name + " (got " +
                                                 std::to_string(kernel.registersPerThread) + ")");
    }

    OccupancyResult r;
    r.warpsPerBlock = ceilDiv(kernel.blockSize, device.warpSize);
    r.maxWarpsPerSm = device.maxThreadsPerSm / device.warpSize;

    r.blocksLimitedByWarps = r.maxWarpsPerSm / r.warpsPerBlock;
    r.blocksLimitedByBlocks = device.maxBlocksPerSm;

    const RegisterBound regs = registerBound(device, arch->registerSubPartitions,
                                             kernel.registersPerThread, r.warpsPerBlock);
    r.blocksLimitedByRegisters = regs.blocks;
    if (arch->mustAlsoFitFourSubPartitions && regs.blocks > 0 &&
        registerBound(device, 4, kernel.registersPerThread, r.warpsPerBlock).blocks == 0) {
        r.blocksLimitedByRegisters = 0;
    }
    r.allocatedRegistersPerBlock = regs.perBlock;

    auto shared = sharedBound(device, *arch, kernel);
    if (!shared) {
        return tl::unexpected(shared.error());
    }
    r.blocksLimitedBySharedMemory = shared->blocks;
    r.allocatedSharedMemoryPerBlockBytes = shared->perBlock;
    r.sharedMemoryPerSmBytes = shared->perSm;

    r.activeBlocksPerSm = std::min({r.blocksLimitedByWarps, r.blocksLimitedByBlocks,
                                    r.blocksLimitedByRegisters, r.blocksLimitedBySharedMemory});
    // Ties are reported in this order: a full SM reads as "warps", and the fixed limits of the
    // hardware come before the ones the kernel could change.
    const std::pair<Limiter, std::uint32_t> bounds[] = {
        {Limiter::Warps, r.blocksLimitedByWarps},
        {Limiter::Blocks, r.blocksLimitedByBlocks},
        {Limiter::Registers, r.blocksLimitedByRegisters},
        {Limiter::SharedMemory, r.blocksLimitedBySharedMemory},
    };
    for (const auto& [limiter, blocks] : bounds) {
        if (blocks == r.activeBlocksPerSm) {
            r.limiters.push_back(limiter);
        }
    }
    r.limiter = r.limiters.front();
    r.activeWarpsPerSm = r.activeBlocksPerSm * r.warpsPerBlock;
    r.occupancy = double(r.activeWarpsPerSm) / double(r.maxWarpsPerSm);
    r.explanation = explain(device, kernel, r, regs, *shared);
    return r;
}

} // namespace slicescope::occupancy
