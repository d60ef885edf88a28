#pragma once

// The launch's own occupancy: the share of the whole GPU's warp slots that one launch can fill,
// given its grid. CUDA's theoretical occupancy (occupancycalculator.h) is a per-SM limit: how
// full each SM *could* be; a launch of too few blocks leaves most SMs empty however full each busy
// one is. The seed's one-worker (1 block of 64 threads on 132 SMs) has a per-SM limit of 100 % and
// a launch occupancy of 0.02 %.

#include "slicescope/occupancy/occupancycalculator.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace slicescope::occupancy {

// What binds a launch: its grid (too few blocks to give every SM its resident share), or, with
// blocks enough, the per-SM limiter of the occupancy calculator.
enum class LaunchLimiter { Grid, Warps, Blocks, Registers, SharedMemory };
// "grid", "warps", "blocks", "registers", "shared-memory"
std::string_view toString(LaunchLimiter limiter);

struct LaunchOccupancy {
    double occupancy = 0; // resident warps of the launch's first wave / (SMs x max warps per SM)
    LaunchLimiter limiter = LaunchLimiter::Grid;
    std::uint64_t residentBlocks = 0; // blocks of the first wave: min(grid, SMs x blocks per SM)
    std::uint32_t smsWithBlocks = 0;  // SMs that get at least one block (blocks spread evenly)
    std::uint64_t waves = 0;          // ceil(grid / (SMs x blocks per SM)); 0 if none fit
    std::string explanation;          // one sentence in plain words
};

// The launch of gridBlocks blocks on a device of smCount SMs whose per-SM occupancy is perSm.
LaunchOccupancy launchOccupancy(const OccupancyResult& perSm, std::uint64_t gridBlocks,
                                std::uint32_t smCount);

} // namespace slicescope::occupancy
