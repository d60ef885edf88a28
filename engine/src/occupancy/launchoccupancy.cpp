#include "slicescope/occupancy/launchoccupancy.h"

#include <algorithm>
#include <cstdio>

namespace slicescope::occupancy {

namespace {

LaunchLimiter fromPerSm(Limiter limiter) {
    switch (limiter) {
    case Limiter::Warps:
        return LaunchLimiter::Warps;
    case Limiter::Blocks:
        return LaunchLimiter::Blocks;
    case Limiter::Registers:
        return LaunchLimiter::Registers;
    case Limiter::SharedMemory:
        return LaunchLimiter::SharedMemory;
    }
    return LaunchLimiter::Warps;
}

std::string percent(double fraction) {
    char text[32];
    const double p = fraction * 100;
    std::snprintf(text, sizeof text,
                  p >= 10 || p == 0 ? "%.0f %%"
                  : p >= 0.1        ? "%.1f %%"
                                    : "%.2g %%",
                  p);
    return text;
}

std::string plural(std::uint64_t count, const char* one, const char* many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

std::string explainGrid(const LaunchOccupancy& launch, const OccupancyResult& perSm,
                        std::uint64_t gridBlocks, std::uint32_t smCount) {
    const std::uint64_t capacity = std::uint64_t(smCount) * perSm.activeBlocksPerSm;
    std::string text = plural(gridBlocks, "block", "blocks") + " for " +
                       plural(smCount, "SM", "SMs") + ": the grid, not the SM, limits this launch";
    if (launch.smsWithBlocks < smCount) {
        text += " (" + plural(smCount - launch.smsWithBlocks, "SM", "SMs") + " idle";
    } else {
        text +=
            " (every SM busy, but the GPU holds " + std::to_string(capacity) + " blocks at once";
    }
    return text + "; it fills " + percent(launch.occupancy) + " of the GPU's warp slots)";
}

} // namespace

std::string_view toString(LaunchLimiter limiter) {
    switch (limiter) {
    case LaunchLimiter::Grid:
        return "grid";
    case LaunchLimiter::Warps:
        return "warps";
    case LaunchLimiter::Blocks:
        return "blocks";
    case LaunchLimiter::Registers:
        return "registers";
    case LaunchLimiter::SharedMemory:
        return "shared-memory";
    }
    return "grid";
}

LaunchOccupancy launchOccupancy(const OccupancyResult& perSm, std::uint64_t gridBlocks,
                                std::uint32_t smCount) {
    LaunchOccupancy launch;
    const std::uint64_t capacity = std::uint64_t(smCount) * perSm.activeBlocksPerSm;
    if (capacity == 0 || gridBlocks == 0 || perSm.maxWarpsPerSm == 0) {
        launch.limiter = gridBlocks == 0 ? LaunchLimiter::Grid : fromPerSm(perSm.limiter);
        launch.explanation = gridBlocks == 0 ? "an empty grid: no block runs"
                                             : "no block of this launch fits on an SM";
        return launch;
    }
    launch.residentBlocks = std::min(gridBlocks, capacity);
    launch.smsWithBlocks = std::uint32_t(std::min<std::uint64_t>(gridBlocks, smCount));
    launch.waves = (gridBlocks + capacity - 1) / capacity;
    launch.occupancy = double(launch.residentBlocks) * perSm.warpsPerBlock /
                       (double(smCount) * perSm.maxWarpsPerSm);
    if (gridBlocks < capacity) {
        launch.limiter = LaunchLimiter::Grid;
        launch.explanation = explainGrid(launch, perSm, gridBlocks, smCount);
    } else {
        launch.limiter = fromPerSm(perSm.limiter);
        launch.explanation =
            plural(gridBlocks, "block", "blocks") + " in " + plural(launch.waves, "wave", "waves") +
            " of " + std::to_string(capacity) + ": every SM holds its " +
            plural(perSm.activeBlocksPerSm, "block", "blocks") + ", the per-SM " + "limit (" +
            std::string(occupancy::toString(perSm.limiter)) + ") binds, and the launch fills " +
            percent(launch.occupancy) + " of the GPU's warp slots";
    }
    return launch;
}

} // namespace slicescope::occupancy
