#include "slicescope/device/devicespec.h"
#include "slicescope/occupancy/launchoccupancy.h"

#include <gtest/gtest.h>

using namespace slicescope;
using namespace slicescope::occupancy;

namespace {

OccupancyResult perSm(std::string_view presetId, std::uint32_t block, std::uint32_t registers) {
    const auto device = device::findPreset(presetId);
    EXPECT_TRUE(device) << presetId;
    KernelResources k;
    k.blockSize = block;
    k.registersPerThread = registers;
    auto result = calculate(*device, k);
    EXPECT_TRUE(result) << (result ? "" : result.error().message);
    return result ? *result : OccupancyResult{};
}

} // namespace

TEST(LaunchOccupancy, TheSeedsOneWorkerIsBoundByItsGridNotByTheSm) {
    // One block of 64 threads on the H200's 132 SMs: the per-SM limit is 100 % (32 such blocks
    // fit), but the launch fills 2 warps of 132 x 64.
    const auto sm = perSm("h200", 64, 0);
    ASSERT_DOUBLE_EQ(sm.occupancy, 1.0);
    const auto launch = launchOccupancy(sm, 1, 132);
    EXPECT_EQ(launch.limiter, LaunchLimiter::Grid);
    EXPECT_EQ(toString(launch.limiter), "grid");
    EXPECT_DOUBLE_EQ(launch.occupancy, 2.0 / (132.0 * 64.0));
    EXPECT_EQ(launch.residentBlocks, 1u);
    EXPECT_EQ(launch.smsWithBlocks, 1u);
    EXPECT_EQ(launch.waves, 1u);
    EXPECT_EQ(launch.explanation.rfind("1 block for 132 SMs: the grid, not the SM, limits this "
                                       "launch (131 SMs idle",
                                       0),
              0u)
        << launch.explanation;
}

TEST(LaunchOccupancy, AGridBelowOneFullWaveIsStillTheGridsLimitWhenEverySmIsBusy) {
    // 200 blocks of 1024 threads at 56 registers: 1 block per SM fits (50 %), 132 at once; 200
    // blocks make two waves, the per-SM limit binds.
    const auto sm = perSm("h200", 1024, 56);
    ASSERT_EQ(sm.activeBlocksPerSm, 1u);
    const auto full = launchOccupancy(sm, 200, 132);
    EXPECT_EQ(full.limiter, LaunchLimiter::Registers);
    EXPECT_DOUBLE_EQ(full.occupancy, sm.occupancy);
    EXPECT_EQ(full.waves, 2u);
    EXPECT_EQ(full.residentBlocks, 132u);
    // 256-thread blocks, 8 per SM: 500 blocks give every SM blocks, but fewer than 8 each.
    const auto small = perSm("h200", 256, 0);
    ASSERT_EQ(small.activeBlocksPerSm, 8u);
    const auto partial = launchOccupancy(small, 500, 132);
    EXPECT_EQ(partial.limiter, LaunchLimiter::Grid);
    EXPECT_EQ(partial.smsWithBlocks, 132u);
    EXPECT_DOUBLE_EQ(partial.occupancy, 500.0 * 8 / (132.0 * 64));
    EXPECT_NE(partial.explanation.find("every SM busy"), std::string::npos) << partial.explanation;
    // Exactly one full wave: the per-SM limit, not the grid.
    EXPECT_EQ(launchOccupancy(small, 132 * 8, 132).limiter, LaunchLimiter::Warps);
    EXPECT_DOUBLE_EQ(launchOccupancy(small, 132 * 8, 132).occupancy, 1.0);
}

TEST(LaunchOccupancy, NothingResidentGivesZero) {
    OccupancyResult none; // a launch that fits no block
    none.limiter = Limiter::SharedMemory;
    const auto launch = launchOccupancy(none, 10, 132);
    EXPECT_EQ(launch.occupancy, 0.0);
    EXPECT_EQ(launch.limiter, LaunchLimiter::SharedMemory);
    EXPECT_EQ(launchOccupancy(perSm("h200", 64, 0), 0, 132).occupancy, 0.0);
}
