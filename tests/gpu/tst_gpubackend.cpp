// The GPU backend on a real device (label gpu): every strategy x dtype x memory mode verified;
// CUPTI records with the right byte counts, launch geometry and kernel count on one clock with
// the host activities; theoretical occupancy equal to the CUDA API's; achieved occupancy with
// counters; occupancy samples. Each test skips, saying why, where there is no device.
#include "gpuprobes.h"
#include "gpuskip.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/core/clock.h"
#include "slicescope/trace/runsummary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using namespace slicescope;
using namespace slicescope::backend;
using problem::Dtype;
using strategy::StrategyId;
using trace::ActivityKind;

namespace {

// Every GPU strategy of the registry.
const std::vector<StrategyId> kGpuStrategies = [] {
    std::vector<StrategyId> ids;
    for (const auto& s : strategy::allStrategies()) {
        if (s.target == strategy::Target::Gpu) {
            ids.push_back(s.id);
        }
    }
    return ids;
}();

const device::DeviceSpec* firstDevice() {
    static const DetectedDevices detected = detectDevices();
    return detected.devices.empty() ? nullptr : &detected.devices.front();
}

std::string noDeviceReason() {
    return "no CUDA device: " + detectDevices().why;
}

#define REQUIRE_DEVICE()                                                                           \
    do {                                                                                           \
        if (firstDevice() == nullptr) {                                                            \
            GTEST_SKIP() << noDeviceReason();                                                      \
        }                                                                                          \
    } while (false)

RunRequest request(problem::Shape shape, Dtype dtype, MemoryMode memory, std::uint32_t repeat,
                   std::uint32_t work = 1, strategy::BlockOption block = {}) {
    RunRequest r;
    r.problem = *problem::makeProblem(shape, dtype, work);
    r.memory = memory;
    r.repeat = repeat;
    r.block = block;
    return r;
}

std::vector<const trace::Activity*> ofKind(const trace::Run& run, ActivityKind kind) {
    std::vector<const trace::Activity*> out;
    for (const auto& a : run.activities) {
        if (a.kind == kind) {
            out.push_back(&a);
        }
    }
    return out;
}

bool hasNote(const trace::Run& run, const std::string& text) {
    return std::any_of(run.notes.begin(), run.notes.end(),
                       [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

std::string notes(const trace::Run& run) {
    std::string all;
    for (const auto& n : run.notes) {
        all += "\n  note: " + n;
    }
    return all;
}

// What the strategy data says the launch is, on this device.
strategy::LaunchGeometry expectedGeometry(StrategyId id, const RunRequest& r) {
    const auto limits = cuda::probes::launchLimits(0, id, r.problem.dtype, r.block);
    return *strategy::launchGeometry(id, r.problem, r.block, *limits);
}

// The records of one run of a strategy with explicit copies.
void expectCopiesAndKernels(StrategyId id, const RunRequest& r, const trace::Run& run) {
    const auto kernels = ofKind(run, ActivityKind::Kernel);
    ASSERT_EQ(kernels.size(), r.repeat) << "one kernel per repetition";
    const auto geometry = expectedGeometry(id, r);
    for (const auto* k : kernels) {
        EXPECT_EQ(k->grid, geometry.grid);
        EXPECT_EQ(k->block, geometry.block);
        EXPECT_GT(k->registersPerThread, 0);
        EXPECT_GT(k->durationNs(), 0);
        EXPECT_FALSE(std::isnan(k->theoreticalOccupancy));
    }
    EXPECT_EQ(run.launch->grid, geometry.grid);
    EXPECT_EQ(run.launch->block, geometry.block);
    // The output is poisoned before each launch: by a device memset, or on the host for mapped
    // memory.
    EXPECT_EQ(ofKind(run, ActivityKind::Memset).size(),
              r.memory == MemoryMode::Mapped ? 0u : r.repeat);
    const bool copies = r.memory == MemoryMode::Pageable || r.memory == MemoryMode::Pinned;
    const auto htod = ofKind(run, ActivityKind::HtoD);
    const auto dtoh = ofKind(run, ActivityKind::DtoH);
    if (!copies) {
        EXPECT_TRUE(htod.empty());
        EXPECT_TRUE(dtoh.empty());
        return;
    }
    const auto hostKind =
        r.memory == MemoryMode::Pinned ? trace::MemoryKind::Pinned : trace::MemoryKind::Pageable;
    std::vector<std::uint64_t> toDevice, toHost;
    for (const auto& t : strategy::transfers(id, r.problem)) {
        (t.direction == strategy::Direction::HostToDevice ? toDevice : toHost).push_back(t.bytes);
    }
    ASSERT_EQ(htod.size(), toDevice.size() * r.repeat);
    ASSERT_EQ(dtoh.size(), toHost.size() * r.repeat);
    for (std::size_t i = 0; i < htod.size(); ++i) {
        EXPECT_EQ(htod[i]->bytes, toDevice[i % toDevice.size()]) << "copy " << i;
        EXPECT_EQ(htod[i]->srcKind, hostKind);
        EXPECT_EQ(htod[i]->dstKind, trace::MemoryKind::Device);
    }
    for (std::size_t i = 0; i < dtoh.size(); ++i) {
        EXPECT_EQ(dtoh[i]->bytes, toHost[i % toHost.size()]);
        EXPECT_EQ(dtoh[i]->srcKind, trace::MemoryKind::Device);
        EXPECT_EQ(dtoh[i]->dstKind, hostKind);
    }
    // Each kernel sits between its iteration's copies in, and copy out.
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        EXPECT_GE(kernels[i]->startNs, htod[i * toDevice.size() + toDevice.size() - 1]->endNs);
        EXPECT_LE(kernels[i]->endNs, dtoh[i * toHost.size()]->startNs);
        EXPECT_EQ(kernels[i]->iteration, i);
    }
}

class EveryStrategy : public ::testing::TestWithParam<StrategyId> {};

} // namespace

TEST_P(EveryStrategy, VerifiedInEveryDtypeAndMemoryModeWithItsRecords) {
    REQUIRE_DEVICE();
    const StrategyId id = GetParam();
    for (Dtype dtype : {Dtype::F64, Dtype::F32}) {
        for (MemoryMode memory :
             {MemoryMode::Pageable, MemoryMode::Pinned, MemoryMode::Managed, MemoryMode::Mapped}) {
            SCOPED_TRACE(std::string(problem::toString(dtype)) + " " +
                         std::string(toString(memory)));
            // 212 = 4 x 53: the vector path of elementwise-broadcast; work 3: the chain.
            const auto r = request({37, 212, 5}, dtype, memory, 2, 3);
            const std::int64_t before = hostNowNs();
            auto results = runGpu({id}, r);
            const std::int64_t after = hostNowNs();
            ASSERT_EQ(results.size(), 1u);
            ASSERT_TRUE(results[0]) << results[0].error().message;
            const auto& run = *results[0];
            ASSERT_TRUE(run.verification);
            EXPECT_TRUE(run.verification->passed)
                << "max abs error " << run.verification->maxAbsError;
            EXPECT_EQ(run.mode, trace::RunMode::MeasuredGpu);
            EXPECT_EQ(run.droppedRecords, 0u);
            EXPECT_FALSE(ofKind(run, ActivityKind::Api).empty())
                << "runtime API calls are recorded";
            expectCopiesAndKernels(id, r, run);
            // One clock: every activity, host or device, lies within the call.
            for (const auto& a : run.activities) {
                EXPECT_GE(a.startNs, before) << run.name(a);
                EXPECT_LE(a.endNs, after) << run.name(a);
            }
            EXPECT_FALSE(hasNote(run, "mismatch")) << notes(run);
        }
    }
}

// Pipelined (strategy/pipeline.h): uneven chunks (37 rows in 5; 212 columns in 5 for slice-middle)
// and more chunks than rows (64), every strategy in every dtype and memory mode (one session per
// setting), verified against the CPU reference, with every byte copied once per repetition and one
// kernel per chunk.
TEST(GpuBackend, PipelinedChunksVerifyForEveryStrategyDtypeAndMemoryMode) {
    REQUIRE_DEVICE();
    for (const strategy::PipelineOptions pipeline :
         {strategy::PipelineOptions{5, 3}, strategy::PipelineOptions{64, 4}}) {
        for (Dtype dtype : {Dtype::F64, Dtype::F32}) {
            for (MemoryMode memory : {MemoryMode::Pageable, MemoryMode::Pinned, MemoryMode::Managed,
                                      MemoryMode::Mapped}) {
                auto r = request({37, 212, 5}, dtype, memory, 2, 3);
                r.pipeline = pipeline;
                auto results = runGpu(kGpuStrategies, r);
                ASSERT_EQ(results.size(), kGpuStrategies.size());
                for (std::size_t i = 0; i < results.size(); ++i) {
                    const StrategyId id = kGpuStrategies[i];
                    SCOPED_TRACE(std::string(strategy::toString(id)) + " " +
                                 std::string(problem::toString(dtype)) + " " +
                                 std::string(toString(memory)) + " chunks " +
                                 std::to_string(pipeline.chunks) + " streams " +
                                 std::to_string(pipeline.streams));
                    ASSERT_TRUE(results[i]) << results[i].error().message;
                    const auto& run = *results[i];
                    ASSERT_TRUE(run.verification);
                    EXPECT_TRUE(run.verification->passed)
                        << "max abs error " << run.verification->maxAbsError;
                    const auto plan = strategy::planPipeline(id, r.problem, pipeline);
                    EXPECT_EQ(run.chunks, plan.chunks.size());
                    EXPECT_EQ(run.streams, plan.streams);
                    const auto kernels = ofKind(run, ActivityKind::Kernel);
                    EXPECT_EQ(kernels.size(), plan.chunks.size() * r.repeat);
                    std::set<std::uint32_t> streams;
                    for (const auto* k : kernels) {
                        streams.insert(k->stream);
                    }
                    EXPECT_EQ(streams.size(), plan.streams);
                    std::uint64_t in = 0, out = 0;
                    for (const auto* a : ofKind(run, ActivityKind::HtoD)) {
                        in += a->bytes;
                    }
                    for (const auto* a : ofKind(run, ActivityKind::DtoH)) {
                        out += a->bytes;
                    }
                    const bool copies =
                        memory == MemoryMode::Pageable || memory == MemoryMode::Pinned;
                    EXPECT_EQ(in, copies ? strategy::bytesToDevice(id, r.problem) * r.repeat : 0);
                    EXPECT_EQ(out,
                              copies ? strategy::bytesFromDevice(id, r.problem) * r.repeat : 0);
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Gpu, EveryStrategy, ::testing::ValuesIn(kGpuStrategies),
                         [](const auto& param) {
                             std::string name(strategy::toString(param.param));
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

TEST(GpuBackend, BlockOptionsAndScalarPathsLaunchWhatTheStrategySays) {
    REQUIRE_DEVICE();
    using Mode = strategy::BlockOption::Mode;
    for (strategy::BlockOption block :
         {strategy::BlockOption{Mode::NumbaCuda, 0}, strategy::BlockOption{Mode::Explicit, 96},
          strategy::BlockOption{Mode::Explicit, 1000}}) {
        for (StrategyId id : kGpuStrategies) {
            SCOPED_TRACE(std::string(strategy::toString(id)) + " block " +
                         strategy::toString(block));
            // 211 is prime: elementwise-broadcast takes its scalar path.
            const auto r = request({37, 211, 5}, Dtype::F32, MemoryMode::Pinned, 1, 1, block);
            auto results = runGpu({id}, r);
            ASSERT_TRUE(results[0]) << results[0].error().message;
            EXPECT_TRUE(results[0]->verification->passed);
            expectCopiesAndKernels(id, r, *results[0]);
        }
    }
}

TEST(GpuBackend, SeedShapeAllStrategiesInOneSession) {
    REQUIRE_DEVICE();
    const auto r = request({100, 4000, 5}, Dtype::F64, MemoryMode::Pageable, 1);
    auto results = runGpu(kGpuStrategies, r);
    ASSERT_EQ(results.size(), kGpuStrategies.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        SCOPED_TRACE(std::string(strategy::toString(kGpuStrategies[i])));
        ASSERT_TRUE(results[i]) << results[i].error().message;
        EXPECT_TRUE(results[i]->verification->passed);
        expectCopiesAndKernels(kGpuStrategies[i], r, *results[i]);
        EXPECT_EQ(results[i]->strategy, strategy::toString(kGpuStrategies[i]));
    }
    // The seed's lesson, measured: one busy thread is far slower than one thread per element.
    const auto kernelNs = [&](std::size_t i) {
        return ofKind(*results[i], ActivityKind::Kernel).front()->durationNs();
    };
    EXPECT_GT(kernelNs(0), 50 * kernelNs(6)) << "one-worker vs elementwise-broadcast";
    // One worker keeps one thread of the whole GPU busy.
    EXPECT_LT(results[0]->occupancy->threadSlotsBusy, 1e-3);
}

TEST(GpuBackend, WarmupIsTracedMarkedAndLeftOutOfThePerRepetitionFigure) {
    REQUIRE_DEVICE();
    auto r = request({100, 4000, 5}, Dtype::F64, MemoryMode::Pageable, 2);
    r.warmup = 1;
    const std::vector<StrategyId> ids{StrategyId::SliceMiddle, StrategyId::ElementwiseMaterialized,
                                      StrategyId::ElementwiseBroadcast};
    auto results = runGpu(ids, r);
    ASSERT_EQ(results.size(), ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        SCOPED_TRACE(std::string(strategy::toString(ids[i])));
        ASSERT_TRUE(results[i]) << results[i].error().message;
        const trace::Run& run = *results[i];
        EXPECT_TRUE(run.verification->passed);
        EXPECT_EQ(run.warmup, 1u);
        const auto kernels = ofKind(run, ActivityKind::Kernel);
        ASSERT_EQ(kernels.size(), 3u) << "one warm-up launch, two measured";
        EXPECT_TRUE(kernels[0]->warmup);
        EXPECT_FALSE(kernels[1]->warmup);
        EXPECT_EQ(kernels[1]->iteration, 0);
        EXPECT_EQ(kernels[2]->iteration, 1);
        std::int64_t measuredDeviceNs = 0, measuredLayoutNs = 0, lastWarmEndNs = 0;
        for (const auto& a : run.activities) {
            if (a.warmup) {
                lastWarmEndNs = std::max(lastWarmEndNs, a.endNs);
                continue;
            }
            if (trace::isDeviceActivity(a.kind)) {
                measuredDeviceNs += a.durationNs();
            }
            const std::string_view name = run.name(a);
            if (a.kind == ActivityKind::Host &&
                (name.starts_with("layout") || name.starts_with("materialize"))) {
                measuredLayoutNs += a.durationNs();
            }
        }
        EXPECT_LE(lastWarmEndNs, kernels[1]->startNs) << "the warm-up iteration comes first";
        const auto summary = trace::summarize(run);
        EXPECT_EQ(summary.kernelCount, 2u);
        EXPECT_EQ(summary.hostLayoutNs, measuredLayoutNs);
        // The strategy's full cost per repetition: its device work and its host layout passes.
        EXPECT_EQ(summary.perRepetitionNs(), (measuredDeviceNs + measuredLayoutNs) / 2);
        if (ids[i] == StrategyId::ElementwiseBroadcast) {
            EXPECT_EQ(measuredLayoutNs, 0);
        } else {
            EXPECT_GT(measuredLayoutNs, 0) << "the host passes run in every repetition";
        }
        std::printf("%s: warm-up kernel %.1f us, measured %.1f us and %.1f us; host layout "
                    "%.2f ms per repetition; per repetition %.3f ms\n",
                    std::string(strategy::toString(ids[i])).c_str(), kernels[0]->durationNs() / 1e3,
                    kernels[1]->durationNs() / 1e3, kernels[2]->durationNs() / 1e3,
                    measuredLayoutNs / 2e6, summary.perRepetitionNs() / 1e6);
    }
}

TEST(GpuBackend, TheoreticalOccupancyEqualsTheCudaApi) {
    REQUIRE_DEVICE();
    for (StrategyId id : kGpuStrategies) {
        for (Dtype dtype : {Dtype::F64, Dtype::F32}) {
            const auto maxThreads = *cuda::probes::kernelMaxThreadsPerBlock(0, id, dtype);
            for (std::uint32_t block :
                 {1u, 32u, 64u, 96u, 128u, 192u, 256u, 384u, 512u, 640u, 768u, 1000u, 1024u}) {
                if (block > maxThreads) {
                    continue;
                }
                SCOPED_TRACE(std::string(strategy::toString(id)) + " " +
                             std::string(problem::toString(dtype)) + " block " +
                             std::to_string(block));
                auto c = cuda::probes::compareOccupancy(0, id, dtype, block);
                ASSERT_TRUE(c) << c.error().message;
                ASSERT_TRUE(c->calculatorActiveBlocksPerSm)
                    << "the occupancy calculator failed: " << c->calculatorError;
                EXPECT_EQ(*c->calculatorActiveBlocksPerSm, c->cudaActiveBlocksPerSm)
                    << c->registersPerThread << " registers per thread";
            }
        }
    }
}

TEST(GpuBackend, CountersGiveAchievedOccupancyJoinedToTheTrace) {
    REQUIRE_DEVICE();
    auto r = request({100, 4000, 5}, Dtype::F64, MemoryMode::Pinned, 2);
    r.counters = true;
    auto results = runGpu({StrategyId::OneWorker, StrategyId::ElementwiseBroadcast}, r);
    ASSERT_EQ(results.size(), 2u);
    for (const auto& result : results) {
        ASSERT_TRUE(result) << result.error().message;
        if (const auto why = gpuskip::skipReason(notes(*result))) {
            GTEST_SKIP() << "GPU counters cannot be read here (" << *why << "):" << notes(*result);
        }
        ASSERT_TRUE(result->occupancy->achieved) << notes(*result);
        ASSERT_TRUE(result->occupancy->smBusyShare);
        EXPECT_TRUE(result->verification->passed);
        const auto kernels = ofKind(*result, ActivityKind::Kernel);
        ASSERT_EQ(kernels.size(), 2u);
        for (const auto* k : kernels) {
            EXPECT_FALSE(std::isnan(k->achievedOccupancy));
            EXPECT_GT(k->durationNs(), 0) << "the traced pass keeps its timestamps";
        }
    }
    // One busy warp on one SM against thousands of blocks: the counters must tell them apart.
    const auto& serial = *results[0]->occupancy;
    const auto& wide = *results[1]->occupancy;
    EXPECT_LT(*serial.achieved, 0.1);
    EXPECT_LT(*serial.smBusyShare, 0.1);
    EXPECT_GT(*wide.achieved, 0.2);
    EXPECT_GT(*wide.smBusyShare, 0.5);
}

TEST(GpuBackend, OccupancySamplesCoverTheRun) {
    REQUIRE_DEVICE();
    auto r = request({400, 4000, 5}, Dtype::F64, MemoryMode::Pinned, 3);
    r.sampleOccupancy = true;
    auto results = runGpu({StrategyId::ElementwiseBroadcast}, r);
    ASSERT_TRUE(results[0]) << results[0].error().message;
    const auto& run = *results[0];
    if (run.occupancySeries.empty()) {
        // Skipped only where the device cannot sample; a decode or profiler error fails below.
        if (const auto why = gpuskip::skipReason(notes(run))) {
            GTEST_SKIP() << "PM sampling unavailable here (" << *why << "):" << notes(run);
        }
    }
    ASSERT_FALSE(run.occupancySeries.empty()) << notes(run);
    for (const auto& s : run.occupancySeries) {
        EXPECT_GE(s.value, 0.0f);
        EXPECT_LE(s.value, 1.0f);
        EXPECT_GE(s.timeNs, run.beginNs() - 1'000'000);
        EXPECT_LE(s.timeNs, run.endNs());
    }
    const auto top =
        std::max_element(run.occupancySeries.begin(), run.occupancySeries.end(),
                         [](const auto& a, const auto& b) { return a.value < b.value; });
    EXPECT_GT(top->value, 0.05f) << "some sample sees the element-wise kernel at work";
}

// A long kernel after a warm-up one: the series covers the measured kernel to its end. Sampling
// used to start with the warm-up, whose 110 ms filled the decode's 10,000 samples, so the
// measured kernel had none (and a second decode of the rest found nothing).
TEST(GpuBackend, OccupancySamplesCoverTheMeasuredKernelAfterAWarmUp) {
    REQUIRE_DEVICE();
    auto r = request({100, 4000, 5}, Dtype::F64, MemoryMode::Pinned, 1);
    r.warmup = 1;
    r.sampleOccupancy = true;
    auto results = runGpu({StrategyId::OneWorker}, r);
    ASSERT_TRUE(results[0]) << results[0].error().message;
    const auto& run = *results[0];
    if (run.occupancySeries.empty()) {
        // Skipped only where the device cannot sample; a decode or profiler error fails below.
        if (const auto why = gpuskip::skipReason(notes(run))) {
            GTEST_SKIP() << "PM sampling unavailable here (" << *why << "):" << notes(run);
        }
    }
    const trace::Activity* warm = nullptr;
    const trace::Activity* measured = nullptr;
    for (const auto* k : ofKind(run, ActivityKind::Kernel)) {
        (k->warmup ? warm : measured) = k;
    }
    ASSERT_TRUE(warm && measured);
    ASSERT_FALSE(run.occupancySeries.empty()) << notes(run);
    EXPECT_GE(run.occupancySeries.front().timeNs, warm->endNs) << "no warm-up samples";
    EXPECT_GE(run.occupancySeries.back().timeNs, measured->endNs - 2'000'000)
        << "the series reaches the measured kernel's end";
    EXPECT_FALSE(hasNote(run, "overflowed")) << notes(run);
}

// Both options on, as a user may tick them: the PM sampler and the Range Profiler each hold the
// counters, so the session must hand them over between passes (CUPTI_ERROR_HARDWARE_BUSY before).
TEST(GpuBackend, CountersAndSamplingTogetherGiveBoth) {
    REQUIRE_DEVICE();
    auto r = request({100, 4000, 5}, Dtype::F64, MemoryMode::Pinned, 2);
    r.counters = true;
    r.sampleOccupancy = true;
    auto results = runGpu({StrategyId::Slice2d, StrategyId::ElementwiseBroadcast}, r);
    ASSERT_EQ(results.size(), 2u);
    for (const auto& result : results) {
        ASSERT_TRUE(result) << result.error().message;
        if (const auto why = gpuskip::skipReason(notes(*result))) {
            GTEST_SKIP() << "GPU counters cannot be read here (" << *why << "):" << notes(*result);
        }
        EXPECT_TRUE(result->occupancy->achieved) << notes(*result);
        EXPECT_FALSE(result->occupancySeries.empty()) << notes(*result);
        EXPECT_FALSE(hasNote(*result, "HARDWARE_BUSY")) << notes(*result);
    }
}

// The Range Profiler stays enabled across a session's counted runs (enabling it per run cost
// 150 ms a run on the H200); it must hand the counters to PM sampling and take them back, and
// the traced kernels between counted passes keep their timestamps.
TEST(GpuBackend, CountedRunsShareOneProfilerAndHandItToSampling) {
    REQUIRE_DEVICE();
    auto counted = request({100, 4000, 5}, Dtype::F64, MemoryMode::Pinned, 1);
    counted.counters = true;
    auto sampled = counted;
    sampled.sampleOccupancy = true;
    auto plain = counted;
    plain.counters = false;
    const std::vector<RunRequest> points{counted, sampled, counted, plain, counted};
    std::vector<GpuResults> results;
    (void)runGpuPoints(
        {StrategyId::Slice2d, StrategyId::ElementwiseBroadcast}, points, GpuOptions{},
        [](std::size_t) { return Progress{}; },
        [&](std::size_t, GpuResults&& r) {
            results.push_back(std::move(r));
            return true;
        });
    ASSERT_EQ(results.size(), points.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
        ASSERT_EQ(results[i].runs.size(), 2u);
        for (const auto& result : results[i].runs) {
            ASSERT_TRUE(result) << "point " << i << ": " << result.error().message;
            if (const auto why = gpuskip::skipReason(notes(*result))) {
                GTEST_SKIP() << "GPU counters cannot be read here (" << *why
                             << "):" << notes(*result);
            }
            EXPECT_TRUE(result->verification->passed);
            const auto kernels = ofKind(*result, ActivityKind::Kernel);
            ASSERT_FALSE(kernels.empty());
            for (const auto* k : kernels) {
                EXPECT_GT(k->durationNs(), 0) << "point " << i;
            }
            // What counting cost is on the host lane, named with its passes.
            const auto hosts = ofKind(*result, ActivityKind::Host);
            const bool counterSpan = std::any_of(hosts.begin(), hosts.end(), [&](const auto* a) {
                return result->name(*a).find("Range Profiler passes per kernel") !=
                       std::string::npos;
            });
            EXPECT_EQ(counterSpan, points[i].counters) << "point " << i << notes(*result);
            if (points[i].counters) {
                EXPECT_TRUE(result->occupancy->achieved) << "point " << i << notes(*result);
            }
            if (points[i].sampleOccupancy) {
                EXPECT_FALSE(result->occupancySeries.empty()) << "point " << i << notes(*result);
            }
            EXPECT_FALSE(hasNote(*result, "HARDWARE_BUSY")) << "point " << i << notes(*result);
            EXPECT_FALSE(hasNote(*result, "no counters")) << "point " << i << notes(*result);
        }
    }
}

TEST(GpuBackend, ProblemTooLargeForTheDeviceIsRefusedBeforeAllocating) {
    REQUIRE_DEVICE();
    const auto* device = firstDevice();
    // Three arrays of about half the device's memory each.
    const std::uint64_t elements = device->globalMemoryBytes / 2 / 8;
    const auto r = request({elements / 1000, 1000, 1}, Dtype::F64, MemoryMode::Pageable, 1);
    auto results = runGpu({StrategyId::SliceOuter}, r);
    ASSERT_FALSE(results[0]);
    EXPECT_EQ(results[0].error().code, Error::Code::InsufficientMemory);
    EXPECT_NE(results[0].error().message.find("device memory"), std::string::npos)
        << results[0].error().message;
    // The session is fine afterwards.
    auto next =
        runGpu({StrategyId::SliceOuter}, request({10, 20, 5}, Dtype::F64, MemoryMode::Pageable, 1));
    ASSERT_TRUE(next[0]) << next[0].error().message;
    EXPECT_TRUE(next[0]->verification->passed);
}

// With pinned memory, 8 chunks on 4 streams overlap copies with kernels and with each other.
TEST(GpuBackend, PinnedPipelineOverlapsCopies) {
    REQUIRE_DEVICE();
    auto r = request({1000, 4000, 5}, Dtype::F64, MemoryMode::Pinned, 1, 1,
                     *strategy::parseBlockOption("256"));
    r.pipeline = {8, 4};
    auto results = runGpu({StrategyId::ElementwiseBroadcast}, r);
    ASSERT_TRUE(results[0]) << results[0].error().message;
    EXPECT_TRUE(results[0]->verification->passed);
    const auto summary = trace::summarize(*results[0]);
    EXPECT_GT(summary.overlapShare(), 0.0) << notes(*results[0]);
    EXPECT_LT(summary.deviceBusyNs, summary.deviceNs());
}
