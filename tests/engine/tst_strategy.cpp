#include "slicescope/device/devicespec.h"
#include "slicescope/occupancy/occupancycalculator.h"
#include "slicescope/strategy/strategy.h"

#include <algorithm>
#include <filesystem>
#include <gtest/gtest.h>
#include <set>

using namespace slicescope;
using namespace slicescope::strategy;

namespace {

problem::Problem seed(problem::Dtype dtype = problem::Dtype::F64) {
    return *problem::makeProblem({100, 4000, 5}, dtype, 1);
}

} // namespace

TEST(Strategy, NamesRoundTrip) {
    for (const auto& s : allStrategies()) {
        auto id = parseStrategy(s.name);
        ASSERT_TRUE(id) << s.name;
        EXPECT_EQ(*id, s.id);
        EXPECT_EQ(toString(s.id), s.name);
        EXPECT_FALSE(s.description.empty());
    }
    EXPECT_EQ(allStrategies().size(), 10u);
}

// Every row says everything about its strategy, and the parts agree: the rest of the engine reads
// these fields instead of switching on the id.
TEST(StrategyRegistry, EveryRowIsCompleteAndConsistent) {
    const auto rows = allStrategies();
    std::set<std::string_view> names, kernels;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const StrategyInfo& s = rows[i];
        SCOPED_TRACE(std::string(s.name));
        EXPECT_EQ(std::size_t(s.id), i) << "rows follow StrategyId, one each";
        EXPECT_EQ(&info(s.id), &s);
        EXPECT_TRUE(names.insert(s.name).second) << "a name twice";
        EXPECT_EQ(s.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"),
                  std::string_view::npos);
        EXPECT_NE(s.name, "all");
        EXPECT_FALSE(s.description.empty());
        EXPECT_NE(knownStrategyNames().find(s.name), std::string::npos);

        const bool gpu = s.target == Target::Gpu;
        EXPECT_EQ(isGpu(s.id), gpu);
        EXPECT_EQ(!s.kernel.empty(), gpu) << "a kernel file for GPU strategies only";
        EXPECT_EQ(s.launch != LaunchStyle::NoLaunch, gpu);
        EXPECT_EQ(s.access != AccessPattern::NoKernel, gpu);
        if (gpu) {
            EXPECT_TRUE(kernels.insert(s.kernel).second) << "a kernel file for two strategies";
            const auto file = std::filesystem::path(SLICESCOPE_TEST_DATA_DIR) / ".." / ".." /
                              "kernels" / (std::string(s.kernel) + ".cu");
            EXPECT_TRUE(std::filesystem::exists(file)) << file;
        } else {
            EXPECT_FALSE(s.materializesMultBy);
            EXPECT_EQ(s.layout, Layout::RCN);
            EXPECT_TRUE(transfers(s.id, seed()).empty());
        }

        // The layout passes: the transposed layout serves the C workers; the copies and the
        // footprint follow the materialized multBy.
        const auto p = seed();
        EXPECT_EQ(decompose(s.id, p).layout, s.layout);
        if (s.layout == Layout::CRN) {
            EXPECT_EQ(s.workers, WorkerCut::PerMiddle);
        }
        if (gpu) {
            EXPECT_EQ(bytesToDevice(s.id, p),
                      p.arrayBytes() + (s.materializesMultBy ? p.arrayBytes() : p.multByBytes()));
        }
        // The access pattern matches how the workers are cut.
        switch (s.access) {
        case AccessPattern::NoKernel:
            break;
        case AccessPattern::OneLane:
            EXPECT_EQ(s.workers, WorkerCut::Whole);
            break;
        case AccessPattern::RowPerLane:
            EXPECT_EQ(s.workers, WorkerCut::PerOuter);
            break;
        case AccessPattern::BlockPerLane:
            EXPECT_EQ(s.layout, Layout::CRN);
            break;
        case AccessPattern::RunPerLane:
            EXPECT_TRUE(s.workers == WorkerCut::PerMiddle || s.workers == WorkerCut::PerRow);
            EXPECT_EQ(s.layout, Layout::RCN);
            break;
        case AccessPattern::ElementPerLane:
            EXPECT_EQ(s.workers, WorkerCut::PerElement);
            break;
        }
    }
}

namespace {

const device::DeviceSpec& h200() {
    const auto& all = device::presets();
    return *std::find_if(all.begin(), all.end(),
                         [](const device::DeviceSpec& d) { return d.id == "h200"; });
}

// The limits the GPU backend and the model give a device-sized grid: SMs and resident blocks of
// the chosen size, here for a kernel of 32 registers per thread.
LaunchLimits deviceLimits(const device::DeviceSpec& d, const BlockOption& block) {
    LaunchLimits limits;
    limits.smCount = d.smCount;
    const auto threads = blockThreads(block, limits);
    const auto occ = occupancy::calculate(d, {*threads, 32, 0});
    limits.residentBlocksPerSm = occ->activeBlocksPerSm;
    return limits;
}

} // namespace

TEST(Strategy, GridStrideDeviceSizesItsGridToTheGpu) {
    const auto& d = h200();
    ASSERT_EQ(d.smCount, 132u);
    for (const char* text : {"numba", "256", "numba-cuda"}) {
        SCOPED_TRACE(text);
        const auto block = *parseBlockOption(text);
        const LaunchLimits limits = deviceLimits(d, block);
        ASSERT_GT(limits.residentBlocksPerSm, 0u);
        auto g = launchGeometry(StrategyId::ElementwiseGridStride, seed(), block, limits);
        ASSERT_TRUE(g) << g.error().message;
        EXPECT_EQ(g->grid, (Dim3{132 * limits.residentBlocksPerSm, 1, 1}));
        EXPECT_EQ(g->block.x, *blockThreads(block, limits));
        EXPECT_TRUE(g->gridStride);
        EXPECT_EQ(g->vectorWidth, 1u);
        EXPECT_EQ(g->decomposition.workers, seed().elements());
        // The seed's 2,000,000 elements outnumber one wave's threads: every thread is busy.
        ASSERT_LT(g->threadsLaunched(), seed().elements());
        EXPECT_EQ(g->busyThreads, g->threadsLaunched());
        // One wave of resident blocks fills every SM's thread slots the occupancy allows.
        EXPECT_LE(g->threadsLaunched(), std::uint64_t(d.smCount) * d.maxThreadsPerSm);
    }
    // 64-thread blocks (numba): the SM's block limit, 32 on Hopper, decides: 132 x 32.
    EXPECT_EQ(deviceLimits(d, *parseBlockOption("numba")).residentBlocksPerSm, d.maxBlocksPerSm);
}

TEST(Strategy, GridStrideDeviceGridDoesNotGrowWithTheData) {
    const auto block = *parseBlockOption("256");
    const LaunchLimits limits = deviceLimits(h200(), block);
    const auto small = *problem::makeProblem({1, 1, 10}, problem::Dtype::F64, 1);
    const auto large = *problem::makeProblem({1000, 4000, 5}, problem::Dtype::F32, 1);
    const auto a = *launchGeometry(StrategyId::ElementwiseGridStride, small, block, limits);
    const auto b = *launchGeometry(StrategyId::ElementwiseGridStride, large, block, limits);
    EXPECT_EQ(a.grid, b.grid);
    EXPECT_EQ(a.busyThreads, 10u); // ten elements: ten busy threads, the rest idle
    EXPECT_EQ(b.busyThreads, b.threadsLaunched());
    // The broadcast strategy's grid is sized to the data instead.
    EXPECT_NE(launchGeometry(StrategyId::ElementwiseBroadcast, small, block, limits)->grid,
              launchGeometry(StrategyId::ElementwiseBroadcast, large, block, limits)->grid);
}

TEST(Strategy, GridStrideDeviceNeedsTheDeviceAndAFittingBlock) {
    const auto block = *parseBlockOption("256");
    auto noDevice = launchGeometry(StrategyId::ElementwiseGridStride, seed(), block, {});
    ASSERT_FALSE(noDevice);
    EXPECT_NE(noDevice.error().message.find("SM count"), std::string::npos);
    LaunchLimits limits = deviceLimits(h200(), block);
    limits.kernelMaxThreadsPerBlock = 128;
    EXPECT_EQ(launchGeometry(StrategyId::ElementwiseGridStride, seed(), block, limits).error().code,
              Error::Code::OutOfRange);
    // A grid over the device limit is cut to it, as the loop covers the rest.
    limits = deviceLimits(h200(), block);
    limits.maxGridX = 100;
    EXPECT_EQ(launchGeometry(StrategyId::ElementwiseGridStride, seed(), block, limits)->grid.x,
              100u);
}

TEST(Strategy, BlockThreadsFollowTheOption) {
    LaunchLimits limits;
    limits.kernelMaxThreadsPerBlock = 768;
    EXPECT_EQ(*blockThreads(*parseBlockOption("numba"), limits), kNumbaBlockThreads);
    EXPECT_EQ(*blockThreads(*parseBlockOption("numba-cuda"), limits), 768u);
    EXPECT_EQ(*blockThreads(*parseBlockOption("96"), limits), 96u);
    EXPECT_FALSE(blockThreads(*parseBlockOption("1024"), limits));
}

TEST(Strategy, ParsesListsAndAll) {
    auto all = parseStrategyList("all");
    ASSERT_TRUE(all);
    EXPECT_EQ(all->size(), allStrategies().size());
    auto two = parseStrategyList("slice-outer,one-worker,slice-outer");
    ASSERT_TRUE(two);
    EXPECT_EQ(*two, (std::vector{StrategyId::SliceOuter, StrategyId::OneWorker}));
    auto bad = parseStrategyList("slice-outer,slice-sideways");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("slice-sideways"), std::string::npos);
    EXPECT_FALSE(parseStrategyList("slice-outer,"));
    EXPECT_FALSE(parseStrategyList(""));
}

TEST(Strategy, AllMayAppearAnywhereInAList) {
    std::vector<StrategyId> every;
    for (const auto& s : allStrategies()) {
        every.push_back(s.id);
    }
    auto twice = parseStrategyList("all,all");
    ASSERT_TRUE(twice) << twice.error().message;
    EXPECT_EQ(*twice, every);
    // Names given first keep their place; 'all' adds the rest in the table's order.
    auto first = parseStrategyList("cpu-serial,all,slice-outer");
    ASSERT_TRUE(first) << first.error().message;
    ASSERT_EQ(first->size(), every.size());
    EXPECT_EQ(first->front(), StrategyId::CpuSerial);
    std::vector<StrategyId> rest = every;
    rest.erase(std::find(rest.begin(), rest.end(), StrategyId::CpuSerial));
    EXPECT_EQ(std::vector<StrategyId>(first->begin() + 1, first->end()), rest);
    EXPECT_FALSE(parseStrategyList("all,,all"));
}

struct DecompositionRow {
    StrategyId id;
    std::uint64_t workers;
    std::uint64_t elementsPerWorker;
    Layout layout;
};

class DecompositionTable : public testing::TestWithParam<DecompositionRow> {};

TEST_P(DecompositionTable, SeedShape) {
    const auto& row = GetParam();
    const Decomposition d = decompose(row.id, seed());
    EXPECT_EQ(d.workers, row.workers);
    EXPECT_EQ(d.elementsPerWorker, row.elementsPerWorker);
    EXPECT_EQ(d.layout, row.layout);
    EXPECT_EQ(d.workers * d.elementsPerWorker, seed().elements());
}

INSTANTIATE_TEST_SUITE_P(
    AllStrategies, DecompositionTable,
    testing::Values(DecompositionRow{StrategyId::OneWorker, 1, 2'000'000, Layout::RCN},
                    DecompositionRow{StrategyId::SliceOuter, 100, 20'000, Layout::RCN},
                    DecompositionRow{StrategyId::SliceMiddle, 4000, 500, Layout::CRN},
                    DecompositionRow{StrategyId::SliceMiddleStrided, 4000, 500, Layout::RCN},
                    DecompositionRow{StrategyId::Slice2d, 400'000, 5, Layout::RCN},
                    DecompositionRow{StrategyId::ElementwiseMaterialized, 2'000'000, 1,
                                     Layout::RCN},
                    DecompositionRow{StrategyId::ElementwiseBroadcast, 2'000'000, 1, Layout::RCN},
                    DecompositionRow{StrategyId::CpuSerial, 1, 2'000'000, Layout::RCN},
                    DecompositionRow{StrategyId::CpuParallel, 100, 20'000, Layout::RCN}));

struct GeometryRow {
    StrategyId id;
    const char* block;
    std::uint32_t kernelMaxThreads;
    Dim3 grid;
    Dim3 block3;
    std::uint64_t busyThreads;
    std::uint32_t vectorWidth;
};

class GeometryTable : public testing::TestWithParam<GeometryRow> {};

TEST_P(GeometryTable, SeedShapeOnH200) {
    const auto& row = GetParam();
    auto option = parseBlockOption(row.block);
    ASSERT_TRUE(option);
    auto limits = LaunchLimits{};
    limits.kernelMaxThreadsPerBlock = row.kernelMaxThreads;
    auto g = launchGeometry(row.id, seed(), *option, limits);
    ASSERT_TRUE(g) << g.error().message;
    EXPECT_EQ(g->grid, row.grid) << toString(g->grid);
    EXPECT_EQ(g->block, row.block3) << toString(g->block);
    EXPECT_EQ(g->busyThreads, row.busyThreads);
    EXPECT_EQ(g->vectorWidth, row.vectorWidth);
}

INSTANTIATE_TEST_SUITE_P(
    Launches, GeometryTable,
    testing::Values(
        // numba 0.38: 64-thread blocks; one worker is one block with one busy thread.
        GeometryRow{StrategyId::OneWorker, "numba", 1024, {1, 1, 1}, {64, 1, 1}, 1, 1},
        GeometryRow{StrategyId::SliceOuter, "numba", 1024, {2, 1, 1}, {64, 1, 1}, 100, 1},
        GeometryRow{StrategyId::SliceMiddle, "numba", 1024, {63, 1, 1}, {64, 1, 1}, 4000, 1},
        GeometryRow{StrategyId::SliceMiddleStrided, "numba", 1024, {63, 1, 1}, {64, 1, 1}, 4000, 1},
        GeometryRow{StrategyId::Slice2d, "numba", 1024, {6250, 1, 1}, {64, 1, 1}, 400'000, 1},
        GeometryRow{StrategyId::ElementwiseMaterialized,
                    "numba",
                    1024,
                    {31250, 1, 1},
                    {64, 1, 1},
                    2'000'000,
                    1},
        // numba-cuda: the largest block the kernel allows; 100 workers still fit in one block.
        GeometryRow{StrategyId::OneWorker, "numba-cuda", 1024, {1, 1, 1}, {1024, 1, 1}, 1, 1},
        GeometryRow{StrategyId::SliceOuter, "numba-cuda", 1024, {1, 1, 1}, {1024, 1, 1}, 100, 1},
        GeometryRow{StrategyId::SliceOuter, "numba-cuda", 640, {1, 1, 1}, {640, 1, 1}, 100, 1},
        GeometryRow{StrategyId::SliceMiddle, "numba-cuda", 1024, {4, 1, 1}, {1024, 1, 1}, 4000, 1},
        // Explicit blocks. Broadcast: 2 doubles per vector, a thread per two vectors.
        GeometryRow{StrategyId::Slice2d, "256", 1024, {1563, 1, 1}, {256, 1, 1}, 400'000, 1},
        GeometryRow{
            StrategyId::ElementwiseBroadcast, "256", 1024, {1954, 1, 1}, {256, 1, 1}, 500'224, 2},
        GeometryRow{StrategyId::ElementwiseBroadcast,
                    "1024",
                    1024,
                    {489, 1, 1},
                    {1024, 1, 1},
                    500'736,
                    2}));

TEST(Strategy, BroadcastOnASmallProblemLaunchesOnlyWhatItNeeds) {
    auto p = *problem::makeProblem({2, 3, 5}, problem::Dtype::F32, 1); // C*N = 15: no float4
    auto g = launchGeometry(StrategyId::ElementwiseBroadcast, p, *parseBlockOption("128"),
                            LaunchLimits{});
    ASSERT_TRUE(g);
    EXPECT_EQ(g->vectorWidth, 1u);
    EXPECT_EQ(g->grid.x, 1u);
    EXPECT_EQ(g->busyThreads, 30u);
    EXPECT_TRUE(g->gridStride);

    auto q = *problem::makeProblem({2, 4, 5}, problem::Dtype::F32, 1); // C*N = 20: float4
    EXPECT_EQ(launchGeometry(StrategyId::ElementwiseBroadcast, q, *parseBlockOption("128"),
                             LaunchLimits{})
                  ->vectorWidth,
              4u);
}

TEST(Strategy, BroadcastPastTheGridLimitLoopsWhereOthersAreRefused) {
    LaunchLimits limits;
    limits.maxGridX = 100; // the seed needs 1954 blocks of 256 for its million vectors
    auto g =
        launchGeometry(StrategyId::ElementwiseBroadcast, seed(), *parseBlockOption("256"), limits);
    ASSERT_TRUE(g) << g.error().message;
    EXPECT_EQ(g->grid.x, 100u);
    EXPECT_EQ(g->busyThreads, 25'600u); // every launched thread loops over several vectors

    auto refused = launchGeometry(StrategyId::ElementwiseMaterialized, seed(),
                                  *parseBlockOption("256"), limits);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("grid limit of 100"), std::string::npos)
        << refused.error().message;
}

TEST(Strategy, CpuStrategiesHaveNoLaunch) {
    auto g = launchGeometry(StrategyId::CpuSerial, seed(), {}, LaunchLimits{});
    ASSERT_FALSE(g);
    EXPECT_EQ(g.error().code, Error::Code::InvalidArgument);
}

TEST(Strategy, BlockOptions) {
    EXPECT_EQ(parseBlockOption("numba")->mode, BlockOption::Mode::Numba);
    EXPECT_EQ(parseBlockOption("numba-cuda")->mode, BlockOption::Mode::NumbaCuda);
    EXPECT_EQ(parseBlockOption("1024")->threads, 1024u);
    EXPECT_EQ(toString(*parseBlockOption("96")), "96");
    for (const char* bad : {"0", "1025", "-3", "abc", "64x"}) {
        EXPECT_FALSE(parseBlockOption(bad)) << bad;
    }
}

TEST(Strategy, BlockLargerThanTheKernelAllowsIsAnError) {
    auto limits = LaunchLimits{};
    limits.kernelMaxThreadsPerBlock = 512;
    auto g = launchGeometry(StrategyId::SliceOuter, seed(), *parseBlockOption("1024"), limits);
    ASSERT_FALSE(g);
    EXPECT_EQ(g.error().code, Error::Code::OutOfRange);
}

TEST(Strategy, GridOverTheDeviceLimitIsAnError) {
    auto p = *problem::makeProblem({1ull << 20, 1ull << 12, 1}, problem::Dtype::F32, 1);
    auto g = launchGeometry(StrategyId::ElementwiseMaterialized, p, *parseBlockOption("1"),
                            LaunchLimits{});
    ASSERT_FALSE(g);
    EXPECT_NE(g.error().message.find("grid limit"), std::string::npos);
    // The grid-stride kernel caps its grid instead.
    EXPECT_TRUE(launchGeometry(StrategyId::ElementwiseBroadcast, p, *parseBlockOption("1"),
                               LaunchLimits{}));
}

TEST(Strategy, TransfersOfTheSeed) {
    const auto p = seed();
    auto t = transfers(StrategyId::SliceOuter, p);
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(t[0].name, "discount");
    EXPECT_EQ(t[0].bytes, 16'000'000u);
    EXPECT_EQ(t[1].name, "multBy");
    EXPECT_EQ(t[1].bytes, 160'000u);
    EXPECT_EQ(t[2].direction, Direction::DeviceToHost);
    EXPECT_EQ(bytesToDevice(StrategyId::SliceOuter, p), 16'160'000u);
    EXPECT_EQ(bytesToDevice(StrategyId::ElementwiseMaterialized, p), 32'000'000u);
    EXPECT_EQ(bytesFromDevice(StrategyId::ElementwiseBroadcast, p), 16'000'000u);
    EXPECT_TRUE(transfers(StrategyId::CpuParallel, p).empty());
}

TEST(Strategy, ThreadSlotsBusy) {
    auto limits = LaunchLimits{};
    // One worker: 1 busy thread of 132 x 2048 slots.
    auto one = *launchGeometry(StrategyId::OneWorker, seed(), {}, limits);
    EXPECT_DOUBLE_EQ(threadSlotsBusy(one, 32, 132, 2048), 1.0 / (132 * 2048));
    // Slice-outer with numba-cuda: 100 busy threads in one block of 1024.
    auto outer =
        *launchGeometry(StrategyId::SliceOuter, seed(), *parseBlockOption("numba-cuda"), limits);
    EXPECT_DOUBLE_EQ(threadSlotsBusy(outer, 2, 132, 2048), 100.0 / (132 * 2048));
    // Element-wise at full occupancy fills every slot.
    auto wide = *launchGeometry(StrategyId::ElementwiseMaterialized, seed(),
                                *parseBlockOption("256"), limits);
    EXPECT_DOUBLE_EQ(threadSlotsBusy(wide, 8, 132, 2048), 1.0);
    // Half the blocks fit: half the slots.
    EXPECT_DOUBLE_EQ(threadSlotsBusy(wide, 4, 132, 2048), 0.5);
}

TEST(Strategy, MemoryFootprintAndFit) {
    const auto p = seed();
    // discount, multBy and cv, then verification's reference beside them: its own discount,
    // multBy and output (compute/reference.h). 16 MB per array, 160 kB per multBy.
    EXPECT_EQ(memoryFootprint(StrategyId::CpuSerial, p).hostBytes, 4 * 16'000'000u + 2 * 160'000u);
    EXPECT_EQ(memoryFootprint(StrategyId::CpuSerial, p).deviceBytes, 0u);
    EXPECT_EQ(memoryFootprint(StrategyId::SliceMiddle, p).hostBytes,
              6 * 16'000'000u + 2 * 160'000u);
    EXPECT_EQ(memoryFootprint(StrategyId::ElementwiseMaterialized, p).deviceBytes, 48'000'000u);
    EXPECT_TRUE(checkFits(StrategyId::SliceOuter, p, 1ull << 30, 1ull << 30));
    auto host = checkFits(StrategyId::SliceOuter, p, 1 << 20, 1ull << 30);
    ASSERT_FALSE(host);
    EXPECT_EQ(host.error().code, Error::Code::InsufficientMemory);
    EXPECT_NE(host.error().message.find("host memory"), std::string::npos);
    auto device = checkFits(StrategyId::SliceOuter, p, 1ull << 30, 1 << 20);
    ASSERT_FALSE(device);
    EXPECT_NE(device.error().message.find("device memory"), std::string::npos);
}
