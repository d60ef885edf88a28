#include <gtest/gtest.h>

#include <map>

#include "slicescope/backend/modelbackend.h"
#include "slicescope/backend/modelparameters.h"
#include "slicescope/trace/tracejson.h"

using namespace slicescope;
using namespace slicescope::backend;
using strategy::StrategyId;

namespace {

RunRequest seedRequest(MemoryMode memory = MemoryMode::Pageable, const char* block = "numba") {
    RunRequest r;
    r.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
    r.block = *strategy::parseBlockOption(block);
    r.memory = memory;
    return r;
}

device::DeviceSpec preset(const char* id) {
    auto d = device::findPreset(id);
    EXPECT_TRUE(d) << id;
    return d ? *d : device::DeviceSpec{};
}

std::int64_t kernelNs(const trace::Run& run) {
    std::int64_t total = 0;
    for (const auto& a : run.activities) {
        total += a.kind == trace::ActivityKind::Kernel ? a.durationNs() : 0;
    }
    return total;
}

} // namespace

TEST(ModelBackend, RunsAreMarkedModelledAndFollowTheStrategyData) {
    const auto h200 = preset("h200");
    for (const auto& s : strategy::allStrategies()) {
        if (s.target != strategy::Target::Gpu) {
            continue;
        }
        auto run = modelRun(s.id, seedRequest(), h200);
        ASSERT_TRUE(run) << s.name << ": " << run.error().message;
        EXPECT_EQ(run->mode, trace::RunMode::Modelled);
        EXPECT_FALSE(run->verification);
        ASSERT_TRUE(run->launch);
        ASSERT_TRUE(run->occupancy);
        EXPECT_FALSE(run->occupancy->achieved);
        EXPECT_NE(run->notes.front().find("modelled"), std::string::npos);

        strategy::LaunchLimits limits;
        const auto geometry = *strategy::launchGeometry(s.id, *run->problem, seedRequest().block, limits);
        EXPECT_EQ(run->launch->grid, geometry.grid);
        EXPECT_EQ(run->launch->block, geometry.block);

        // Copies move exactly the strategy's bytes, in order: HtoD..., kernel, DtoH.
        std::uint64_t htod = 0, dtoh = 0;
        int kernels = 0;
        std::int64_t previousEnd = 0;
        for (const auto& a : run->activities) {
            EXPECT_GE(a.startNs, previousEnd);
            EXPECT_GT(a.endNs, a.startNs);
            previousEnd = a.endNs;
            htod += a.kind == trace::ActivityKind::HtoD ? a.bytes : 0;
            dtoh += a.kind == trace::ActivityKind::DtoH ? a.bytes : 0;
            kernels += a.kind == trace::ActivityKind::Kernel;
        }
        EXPECT_EQ(htod, strategy::bytesToDevice(s.id, *run->problem)) << s.name;
        EXPECT_EQ(dtoh, strategy::bytesFromDevice(s.id, *run->problem)) << s.name;
        EXPECT_EQ(kernels, 1);
        EXPECT_EQ(run->wallNs, previousEnd);
    }
}

TEST(ModelBackend, OrdersStrategiesAsMeasurementDoes) {
    // docs/design.md ("The problem it was born from"): one worker far slower than slices along the
    // outer dimension, slower than slices along the middle, slower than one thread per element.
    for (const char* id : {"h200", "h100-sxm", "a100-sxm4-80gb", "rtx-4090", "t4", "gtx-970"}) {
        const auto device = preset(id);
        std::map<StrategyId, std::int64_t> ns;
        for (auto s : {StrategyId::OneWorker, StrategyId::SliceOuter, StrategyId::SliceMiddle,
                       StrategyId::ElementwiseBroadcast, StrategyId::ElementwiseMaterialized}) {
            auto run = modelRun(s, seedRequest(), device);
            ASSERT_TRUE(run) << id << ": " << run.error().message;
            ns[s] = kernelNs(*run);
        }
        EXPECT_GT(ns[StrategyId::OneWorker], 10 * ns[StrategyId::SliceOuter]) << id;
        EXPECT_GT(ns[StrategyId::SliceOuter], ns[StrategyId::SliceMiddle]) << id;
        EXPECT_GT(ns[StrategyId::SliceMiddle], ns[StrategyId::ElementwiseBroadcast]) << id;
        EXPECT_GT(ns[StrategyId::SliceMiddle], ns[StrategyId::ElementwiseMaterialized]) << id;
    }
}

TEST(ModelBackend, CopiesFollowTheLinkBandwidth) {
    const auto h200 = preset("h200");
    const ModelParameters m;
    auto pageable = *modelRun(StrategyId::SliceOuter, seedRequest(MemoryMode::Pageable), h200);
    auto pinned = *modelRun(StrategyId::SliceOuter, seedRequest(MemoryMode::Pinned), h200);
    const auto& first = pageable.activities.front();
    ASSERT_EQ(first.kind, trace::ActivityKind::HtoD);
    EXPECT_EQ(first.bytes, 16'000'000u);
    EXPECT_NEAR(double(first.durationNs()), modelCopyNs(16'000'000, h200.pageableHtoDGBps, m), 1.0);
    EXPECT_EQ(first.srcKind, trace::MemoryKind::Pageable);
    EXPECT_EQ(pinned.activities.front().srcKind, trace::MemoryKind::Pinned);
    EXPECT_LT(pinned.activities.front().durationNs() * 4, first.durationNs());
    // Seed (resources/devices.json, measured on the H200): 16 MB pageable HtoD took 2.4 ms, pinned
    // 0.30 ms.
    EXPECT_NEAR(double(first.durationNs()) / 1e6, 2.4, 0.3);
    EXPECT_NEAR(double(pinned.activities.front().durationNs()) / 1e6, 0.30, 0.05);
}

TEST(ModelBackend, MappedAndManagedMemoryHaveNoExplicitCopies) {
    const auto h200 = preset("h200");
    for (auto memory : {MemoryMode::Mapped, MemoryMode::Managed}) {
        auto run = modelRun(StrategyId::ElementwiseBroadcast, seedRequest(memory, "256"), h200);
        ASSERT_TRUE(run);
        for (const auto& a : run->activities) {
            EXPECT_FALSE(trace::isCopy(a.kind));
        }
        // Mapped memory crosses the host link: far slower than device memory.
        auto pinned = *modelRun(StrategyId::ElementwiseBroadcast, seedRequest(MemoryMode::Pinned, "256"), h200);
        EXPECT_GT(kernelNs(*run), 10 * kernelNs(pinned));
    }
}

TEST(ModelBackend, MoreWorkPerElementMakesLoneWorkersSlower) {
    const auto h200 = preset("h200");
    auto request = seedRequest();
    auto k1 = kernelNs(*modelRun(StrategyId::OneWorker, request, h200));
    request.problem.workPerElement = 64;
    auto k64 = kernelNs(*modelRun(StrategyId::OneWorker, request, h200));
    EXPECT_GT(k64, 2 * k1);
}

TEST(ModelBackend, RepeatsTheSequence) {
    auto request = seedRequest();
    request.repeat = 3;
    auto run = modelRun(StrategyId::Slice2d, request, preset("h200"));
    ASSERT_TRUE(run);
    int kernels = 0;
    for (const auto& a : run->activities) {
        if (a.kind == trace::ActivityKind::Kernel) {
            EXPECT_EQ(a.iteration, kernels);
            ++kernels;
        }
    }
    EXPECT_EQ(kernels, 3);
}

TEST(ModelBackend, OldGpusAreModelledWithANote) {
    auto run = modelRun(StrategyId::OneWorker, seedRequest(), preset("quadro-k2000"));
    ASSERT_TRUE(run) << run.error().message;
    bool noted = false;
    for (const auto& note : run->notes) {
        noted |= note.find("CUDA 13") != std::string::npos;
    }
    EXPECT_TRUE(noted);
}

TEST(ModelBackend, RejectsCpuStrategiesAndOversizedProblems) {
    const auto h200 = preset("h200");
    EXPECT_FALSE(modelRun(StrategyId::CpuSerial, seedRequest(), h200));
    auto request = seedRequest();
    request.problem = *problem::makeProblem({100000, 100000, 10}, problem::Dtype::F64, 1); // 800 GB
    auto run = modelRun(StrategyId::ElementwiseBroadcast, request, h200);
    ASSERT_FALSE(run);
    EXPECT_EQ(run.error().code, Error::Code::InsufficientMemory);
}

TEST(ModelBackend, MatchesTheH200MeasurementsItIsCalibratedOn) {
    // resources/samples/seed-100x4000x5-f64-pageable.json: CUPTI kernel durations on the H200.
    auto measured = trace::readTrace(std::string(SLICESCOPE_TEST_DATA_DIR) +
                                     "/../../resources/samples/seed-100x4000x5-f64-pageable.json");
    ASSERT_TRUE(measured) << measured.error().message;
    const auto h200 = preset("h200");
    int compared = 0;
    for (const auto& run : measured->runs) {
        if (run.mode != trace::RunMode::MeasuredGpu) {
            continue;
        }
        auto id = strategy::parseStrategy(run.strategy);
        ASSERT_TRUE(id);
        auto modelled = modelRun(*id, seedRequest(), h200);
        ASSERT_TRUE(modelled) << run.strategy;
        const double ratio = double(kernelNs(*modelled)) / double(kernelNs(run));
        // Within a factor of 1.5 either way on every strategy, across five orders of magnitude.
        EXPECT_GT(ratio, 1 / 1.5) << run.strategy << ": modelled " << kernelNs(*modelled) << " ns, measured "
                                  << kernelNs(run) << " ns";
        EXPECT_LT(ratio, 1.5) << run.strategy << ": modelled " << kernelNs(*modelled) << " ns, measured "
                              << kernelNs(run) << " ns";
        ++compared;
    }
    EXPECT_EQ(compared, 7);
}
