#include "slicescope/occupancy/residency.h"

#include <gtest/gtest.h>
#include <numeric>

using namespace slicescope;
using namespace slicescope::occupancy;

namespace {

device::DeviceSpec h200Like() {
    device::DeviceSpec d;
    d.smCount = 132;
    d.warpSize = 32;
    d.maxThreadsPerSm = 2048;
    d.maxWarpsPerSm = 64;
    return d;
}

std::uint64_t total(const Residency& r, std::uint64_t SmLoad::*field) {
    std::uint64_t sum = 0;
    for (const auto& load : r.sms) {
        sum += load.*field;
    }
    return sum;
}

std::uint64_t totalBlocks(const Residency& r) {
    std::uint64_t sum = 0;
    for (const auto& load : r.sms) {
        sum += load.blocks;
    }
    return sum;
}

} // namespace

TEST(Residency, TheSeedsOneWorkerUsesOneSmAndOneWarp) {
    const Residency r = modelResidency(h200Like(), {1, 1, 1}, {64, 1, 1}, 1, 32);
    ASSERT_EQ(r.sms.size(), 132u);
    EXPECT_EQ(r.sms[0].blocks, 1u);
    EXPECT_EQ(r.sms[0].warps, 2u);
    EXPECT_EQ(r.sms[0].busyWarps, 1u);
    EXPECT_EQ(r.sms[0].busyThreads, 1u);
    EXPECT_EQ(r.idleSms, 131u);
    EXPECT_EQ(r.smsWithWork, 1u);
    EXPECT_EQ(r.waves, 1u);
}

TEST(Residency, SliceOuterSpreadsBlocksRoundRobin) {
    // 100 workers in 64-thread blocks: 2 blocks, the second with 36 busy threads.
    const Residency r = modelResidency(h200Like(), {2, 1, 1}, {64, 1, 1}, 100, 32);
    EXPECT_EQ(r.sms[0].busyThreads, 64u);
    EXPECT_EQ(r.sms[1].busyThreads, 36u);
    EXPECT_EQ(r.sms[1].busyWarps, 2u);
    EXPECT_EQ(r.idleSms, 130u);
}

TEST(Residency, FullGridIsCappedAtOneWave) {
    // 7813 blocks of 256 threads, 8 resident per SM: 1056 in the first wave, 8 waves.
    const Residency r = modelResidency(h200Like(), {7813, 1, 1}, {256, 1, 1}, 2'000'000, 8);
    EXPECT_EQ(r.residentBlocks, 1056u);
    EXPECT_EQ(r.waves, 8u);
    EXPECT_EQ(totalBlocks(r), 1056u);
    for (const auto& load : r.sms) {
        EXPECT_EQ(load.blocks, 8u);
        EXPECT_EQ(load.warps, 64u);
        EXPECT_EQ(load.busyWarps, 64u);
    }
    EXPECT_EQ(r.idleSms, 0u);
    EXPECT_EQ(total(r, &SmLoad::busyThreads), 1056u * 256u);
}

TEST(Residency, BusyThreadsAreCountedOncePerBlockAcrossSms) {
    // 300 blocks of 32 threads, 2 resident per SM: 264 resident; first 5000 threads busy.
    const Residency r = modelResidency(h200Like(), {300, 1, 1}, {32, 1, 1}, 5000, 2);
    EXPECT_EQ(r.residentBlocks, 264u);
    // Busy blocks: 156 full (4992 threads) and block 156 with 8 threads, all in the first wave.
    EXPECT_EQ(total(r, &SmLoad::busyThreads), 5000u);
    EXPECT_EQ(r.sms[24].busyThreads, 32u + 8u); // blocks 24 and 156
    EXPECT_EQ(r.sms[25].busyThreads, 32u);      // block 25 only; block 157 has no work
}

TEST(Residency, NoBlocksPerSmMeansNothingResident) {
    const Residency r = modelResidency(h200Like(), {10, 1, 1}, {1024, 1, 1}, 10240, 0);
    EXPECT_EQ(r.residentBlocks, 0u);
    EXPECT_EQ(r.idleSms, 132u);
    EXPECT_EQ(totalBlocks(r), 0u);
}
