// The roofline with the copies: placement under a bandwidth roof and a compute ceiling.
#include "slicescope/strategy/strategy.h"
#include "slicescope/sweep/roofline.h"
#include "slicescope/trace/runsummary.h"

#include <gtest/gtest.h>

namespace slicescope::sweep {
namespace {

struct PlaceCase {
    double flops, bytes, timeNs, bandwidthGBps, peakGflops;
    double intensity, ridge, attainable, achieved;
    Bound bound;
};

class Place : public ::testing::TestWithParam<PlaceCase> {};

TEST_P(Place, GivesIntensityRidgeAttainableAndBound) {
    const auto& c = GetParam();
    const auto p = place(c.flops, c.bytes, c.timeNs, c.bandwidthGBps, c.peakGflops);
    EXPECT_DOUBLE_EQ(p.intensity, c.intensity);
    EXPECT_DOUBLE_EQ(p.ridgeIntensity, c.ridge);
    EXPECT_DOUBLE_EQ(p.attainableGflops, c.attainable);
    EXPECT_DOUBLE_EQ(p.achievedGflops, c.achieved);
    EXPECT_EQ(p.bound, c.bound);
}

INSTANTIATE_TEST_SUITE_P(
    Roofline, Place,
    ::testing::Values(
        // 1 flop/B under 100 GB/s and 1000 Gflop/s: on the slope, 100 Gflop/s attainable.
        PlaceCase{1000, 1000, 20, 100, 1000, 1, 10, 100, 50, Bound::Bandwidth},
        // 100 flop/B: past the ridge (10), the compute ceiling binds.
        PlaceCase{1e5, 1000, 1000, 100, 1000, 100, 10, 1000, 100, Bound::Compute},
        // Exactly at the ridge: compute-bound by convention.
        PlaceCase{1e4, 1000, 0, 100, 1000, 10, 10, 1000, 0, Bound::Compute},
        // Unknown peak: the slope alone.
        PlaceCase{1000, 1000, 0, 100, 0, 1, 0, 100, 0, Bound::Bandwidth}));

problem::Problem seed() {
    return *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
}

trace::Run seedRun(std::string strategyName, std::string memory) {
    trace::Run run;
    run.id = strategyName;
    run.strategy = std::move(strategyName);
    run.mode = trace::RunMode::MeasuredGpu;
    run.problem = seed();
    run.memoryMode = std::move(memory);
    run.device = *device::findPreset("h200");
    const auto add = [&run](trace::ActivityKind kind, std::int64_t start, std::int64_t end,
                            std::uint64_t bytes) {
        trace::Activity a;
        a.kind = kind;
        a.startNs = start;
        a.endNs = end;
        a.bytes = bytes;
        run.activities.push_back(a);
    };
    add(trace::ActivityKind::HtoD, 0, 2'400'000, 16'160'000);
    add(trace::ActivityKind::Kernel, 2'400'000, 2'408'500, 0);
    add(trace::ActivityKind::DtoH, 2'408'500, 3'508'500, 16'000'000);
    return run;
}

TEST(Roofline, ProblemFlopsCountOneMultiplyAndTwoPerExtraWork) {
    EXPECT_DOUBLE_EQ(problemFlops(seed()), 2e6);
    EXPECT_DOUBLE_EQ(problemFlops(*problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 40)),
                     2e6 * 79);
}

TEST(Roofline, TheSeedLandsFarLeftOfTheHostLinkRoof) {
    const auto device = *device::findPreset("h200");
    const auto ceilings = datasheetCeilings(device);
    auto roof = runRoofline(seedRun("elementwise-broadcast", "pageable"), ceilings);
    ASSERT_TRUE(roof) << roof.error().message;
    // 2,000,000 flop over 32,160,000 bytes: the seed's 0.062 flop/byte.
    EXPECT_NEAR(roof->wholeRun.intensity, 0.0622, 0.0001);
    EXPECT_DOUBLE_EQ(roof->wholeRun.intensity, seed().arithmeticIntensity());
    EXPECT_EQ(roof->hostLink, "pageable");
    EXPECT_EQ(roof->ceilingsSource, "datasheet");
    EXPECT_EQ(roof->wholeRun.bound, Bound::Bandwidth);
    // The host-link ridge is thousands of flop per byte away: over 10,000 times further right.
    EXPECT_GT(roof->wholeRun.ridgeIntensity / roof->wholeRun.intensity, 1e4);
    // Pageable link for these bytes: 16.16 MB at 6.7 GB/s in, 16 MB at 13.9 GB/s out.
    const double linkGBps = 32.16e6 / (16.16e6 / 6.7 + 16e6 / 13.9);
    EXPECT_NEAR(roof->wholeRun.bandwidthGBps, linkGBps, 1e-9);
    EXPECT_NEAR(roof->wholeRun.attainableGflops, roof->wholeRun.intensity * linkGBps, 1e-9);
    // Achieved: 2e6 flop in the 3.5085 ms of device work.
    EXPECT_NEAR(roof->wholeRun.achievedGflops, 2e6 / 3'508'500.0, 1e-12);
    // The kernel alone is against the device-memory roof, 4800 GB/s: far higher.
    EXPECT_DOUBLE_EQ(roof->kernel.bandwidthGBps, 4800);
    EXPECT_NEAR(roof->kernel.achievedGflops, 2e6 / 8500.0, 1e-9);
    EXPECT_GT(roof->kernel.attainableGflops / roof->wholeRun.attainableGflops, 100);
}

TEST(Roofline, PinnedMemoryUsesThePinnedLink) {
    const auto ceilings = datasheetCeilings(*device::findPreset("h200"));
    auto roof = runRoofline(seedRun("slice-2d", "pinned"), ceilings);
    ASSERT_TRUE(roof);
    EXPECT_EQ(roof->hostLink, "pinned");
    EXPECT_NEAR(roof->wholeRun.bandwidthGBps, 55.0, 1e-9);
}

// The GUI places every run of a session from the summary its entry holds: the same points.
TEST(Roofline, FromASummaryMadeBeforeTheSamePoints) {
    const auto ceilings = datasheetCeilings(*device::findPreset("h200"));
    const trace::Run run = seedRun("slice-2d", "pinned");
    const auto direct = runRoofline(run, ceilings);
    const auto fromSummary = runRoofline(run, trace::summarize(run), ceilings);
    ASSERT_TRUE(direct && fromSummary);
    EXPECT_EQ(fromSummary->kernel.achievedGflops, direct->kernel.achievedGflops);
    EXPECT_EQ(fromSummary->wholeRun.achievedGflops, direct->wholeRun.achievedGflops);
    EXPECT_EQ(fromSummary->wholeRun.bytes, direct->wholeRun.bytes);
    EXPECT_EQ(fromSummary->hostLink, direct->hostLink);
    // The summary is what gives the times: another run's summary moves the points.
    trace::Run slower = run;
    slower.activities[1].endNs += 8'500;
    const auto moved = runRoofline(run, trace::summarize(slower), ceilings);
    ASSERT_TRUE(moved);
    EXPECT_NEAR(moved->kernel.achievedGflops, direct->kernel.achievedGflops / 2, 1e-9);
}

TEST(Roofline, CpuRunsHaveNone) {
    auto run = seedRun("cpu-parallel", "");
    EXPECT_FALSE(runRoofline(run, datasheetCeilings(run.device)));
    run.problem.reset();
    run.strategy = "slice-2d";
    EXPECT_FALSE(runRoofline(run, datasheetCeilings(run.device)));
}

TEST(Roofline, DatasheetCeilingsComeFromThePreset) {
    const auto h200 = *device::findPreset("h200");
    const auto c = datasheetCeilings(h200);
    EXPECT_EQ(c.source, "datasheet");
    EXPECT_DOUBLE_EQ(c.dramGBps, h200.memoryBandwidthGBps);
    EXPECT_DOUBLE_EQ(c.pinnedHtoDGBps, h200.pinnedHtoDGBps);
    EXPECT_DOUBLE_EQ(c.pageableDtoHGBps, h200.pageableDtoHGBps);
    // 132 SMs x 1980 MHz x 64 FP64 FMA per clock x 2 flop: about the datasheet's 34 Tflop/s.
    EXPECT_NEAR(c.fp64Gflops, 132 * 1980e-3 * 64 * 2, 1e-6);
    EXPECT_NEAR(c.fp32Gflops, 2 * c.fp64Gflops, 1e-6);
    // A consumer part (the T4, cc 7.5): FP64 at 1/32 of FP32.
    const auto t4 = datasheetCeilings(*device::findPreset("t4"));
    EXPECT_NEAR(t4.fp32Gflops / t4.fp64Gflops, 32, 1e-9);
}

TEST(Roofline, ARunIsPlacedAgainstItsOwnCeilingsElseItsPresetsIfModelled) {
    auto measured = seedRun("slice-2d", "pageable");
    EXPECT_FALSE(ceilingsOf(measured)) << "a measured run without stored ceilings has none";
    trace::Ceilings stored = datasheetCeilings(measured.device);
    stored.source = "measured";
    stored.dramGBps = 4043;
    measured.ceilings = stored;
    ASSERT_TRUE(ceilingsOf(measured));
    EXPECT_EQ(ceilingsOf(measured)->source, "measured");
    EXPECT_DOUBLE_EQ(ceilingsOf(measured)->dramGBps, 4043);

    auto modelled = seedRun("slice-2d", "pageable");
    modelled.mode = trace::RunMode::Modelled;
    ASSERT_TRUE(ceilingsOf(modelled));
    EXPECT_EQ(*ceilingsOf(modelled), datasheetCeilings(*device::findPreset("h200")));
    modelled.device.id = "no-such-preset";
    EXPECT_FALSE(ceilingsOf(modelled));
}

} // namespace
} // namespace slicescope::sweep
