#include "slicescope/occupancy/residency.h"

#include <algorithm>

namespace slicescope::occupancy {

Residency modelResidency(const device::DeviceSpec& device, const Dim3& grid, const Dim3& block,
                         std::uint64_t busyThreads, std::uint32_t activeBlocksPerSm) {
    Residency r;
    const std::uint32_t smCount = device.smCount;
    const std::uint32_t warpSize = std::max<std::uint32_t>(1, device.warpSize);
    r.maxWarpsPerSm =
        device.maxWarpsPerSm > 0 ? device.maxWarpsPerSm : device.maxThreadsPerSm / warpSize;
    r.sms.resize(smCount);
    const std::uint64_t blocks = grid.count();
    const std::uint64_t threadsPerBlock = block.count();
    if (smCount == 0 || blocks == 0 || threadsPerBlock == 0 || activeBlocksPerSm == 0) {
        r.idleSms = smCount;
        return r;
    }
    const std::uint64_t capacity = std::uint64_t(smCount) * activeBlocksPerSm;
    r.residentBlocks = std::min(blocks, capacity);
    r.waves = (blocks + capacity - 1) / capacity;
    const std::uint64_t warpsPerBlock = (threadsPerBlock + warpSize - 1) / warpSize;

    // Block b of the first wave goes to SM b % smCount. Busy threads are the first busyThreads
    // of the launch, so block b holds max(0, min(threadsPerBlock, busy - b * threadsPerBlock)).
    // Blocks of one SM are b = sm, sm + smCount, ...: summed per SM without visiting each block.
    const std::uint64_t fullBusyBlocks = busyThreads / threadsPerBlock; // blocks entirely busy
    const std::uint64_t partialThreads = busyThreads % threadsPerBlock; // in block fullBusyBlocks
    for (std::uint32_t sm = 0; sm < smCount; ++sm) {
        SmLoad& load = r.sms[sm];
        const std::uint64_t held =
            r.residentBlocks > sm ? (r.residentBlocks - sm + smCount - 1) / smCount : 0;
        load.blocks = std::uint32_t(held);
        load.warps = std::uint32_t(held * warpsPerBlock);
        if (held == 0) {
            continue;
        }
        // Resident blocks of this SM: sm + k * smCount for k < held. Fully busy ones: those below
        // fullBusyBlocks.
        const std::uint64_t fullyBusy =
            fullBusyBlocks > sm
                ? std::min<std::uint64_t>(held, (fullBusyBlocks - sm + smCount - 1) / smCount)
                : 0;
        load.busyThreads = fullyBusy * threadsPerBlock;
        load.busyWarps = std::uint32_t(fullyBusy * warpsPerBlock);
        if (partialThreads > 0 && fullBusyBlocks >= sm && (fullBusyBlocks - sm) % smCount == 0 &&
            (fullBusyBlocks - sm) / smCount < held) {
            load.busyThreads += partialThreads;
            load.busyWarps += std::uint32_t((partialThreads + warpSize - 1) / warpSize);
        }
    }
    for (const SmLoad& load : r.sms) {
        r.idleSms += load.blocks == 0 ? 1 : 0;
        r.smsWithWork += load.busyThreads > 0 ? 1 : 0;
    }
    return r;
}

} // namespace slicescope::occupancy
