#pragma once

#include "slicescope/core/dim3.h"
#include "slicescope/device/devicespec.h"

#include <cstdint>
#include <vector>

// A model of which blocks and warps sit on which SM during a launch's first wave, computed from
// the launch geometry and the theoretical blocks per SM. It is not a measurement: the hardware
// block scheduler is not documented; this model hands blocks to SMs round-robin, as it does for
// a launch that starts on an idle GPU.
namespace slicescope::occupancy {

struct SmLoad {
    std::uint32_t blocks = 0;      // resident blocks
    std::uint32_t warps = 0;       // resident warps
    std::uint32_t busyWarps = 0;   // resident warps with at least one thread that has work
    std::uint64_t busyThreads = 0; // resident threads that have work
};

struct Residency {
    std::vector<SmLoad> sms; // one per SM, in SM order
    std::uint32_t maxWarpsPerSm = 0;
    std::uint64_t residentBlocks = 0; // blocks of the first wave
    std::uint64_t waves = 0;          // how many rounds of resident blocks the grid needs
    std::uint32_t idleSms = 0;        // SMs holding no block
    std::uint32_t smsWithWork = 0;    // SMs holding at least one thread with work
    // False where which threads work is not known (a recorded kernel without counters): busyWarps
    // and busyThreads are then 0 and mean nothing.
    bool workKnown = true;
};

// busyThreads: launched threads that get work (the first busyThreads of the launch, in block
// order). activeBlocksPerSm: the occupancy calculator's figure for this kernel; 0 gives an empty
// model (the launch cannot run).
Residency modelResidency(const device::DeviceSpec& device, const Dim3& grid, const Dim3& block,
                         std::uint64_t busyThreads, std::uint32_t activeBlocksPerSm);

} // namespace slicescope::occupancy
