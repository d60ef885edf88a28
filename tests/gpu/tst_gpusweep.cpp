// Sweeps on a real GPU: every point in one session (one CUDA context), the measured roofline
// ceilings, and `slicescope-cli sweep` with one worker for the whole sweep. Skips without a device.
#include "slicescope/backend/ceilingsprobe.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/core/progressline.h"
#include "slicescope/sweep/sweepplan.h"
#include "slicescope/trace/tracejson.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

namespace slicescope {
namespace {

using strategy::StrategyId;

bool hasDevice() {
    static const bool present = !backend::detectDevices().devices.empty();
    return present;
}

#define REQUIRE_DEVICE()                                                                           \
    do {                                                                                           \
        if (!hasDevice()) {                                                                        \
            GTEST_SKIP() << "no CUDA device: " << backend::detectDevices().why;                    \
        }                                                                                          \
    } while (false)

bool hasSetupNote(const trace::Run& run) {
    for (const auto& note : run.notes) {
        if (note.rfind("session setup before this run", 0) == 0) {
            return true;
        }
    }
    return false;
}

TEST(GpuSweep, EveryPointRunsInOneSession) {
    REQUIRE_DEVICE();
    backend::RunRequest base;
    base.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
    std::vector<backend::RunRequest> requests;
    for (const auto* block : {"32", "256", "1024"}) {
        requests.push_back(*sweep::applyValue(sweep::SweepParam::Block, block, base));
    }
    const std::vector<StrategyId> ids{StrategyId::Slice2d, StrategyId::ElementwiseBroadcast};
    std::vector<trace::Run> runs;
    std::vector<std::size_t> points;
    const bool hung = backend::runGpuPoints(ids, requests, {}, nullptr,
                                            [&](std::size_t point, backend::GpuResults&& results) {
                                                points.push_back(point);
                                                for (auto& run : results.runs) {
                                                    EXPECT_TRUE(run) << run.error().message;
                                                    if (run) {
                                                        runs.push_back(std::move(*run));
                                                    }
                                                }
                                                return true;
                                            });
    EXPECT_FALSE(hung);
    EXPECT_EQ(points, (std::vector<std::size_t>{0, 1, 2}));
    ASSERT_EQ(runs.size(), 6u);
    // The session's setup note goes to its first run only: one session, one context.
    EXPECT_TRUE(hasSetupNote(runs.front()));
    for (std::size_t i = 1; i < runs.size(); ++i) {
        EXPECT_FALSE(hasSetupNote(runs[i])) << i;
    }
    EXPECT_EQ(runs[0].launch->block.x, 32u);
    EXPECT_EQ(runs[5].launch->block.x, 1024u);
}

// A point's strategies share one progress: it never goes back when the next strategy starts, and
// it ends at 1 (each strategy's own fraction used to start again at 0).
TEST(GpuSweep, ProgressOverAPointsStrategiesNeverGoesBack) {
    REQUIRE_DEVICE();
    backend::RunRequest base;
    base.problem = *problem::makeProblem({10, 400, 5}, problem::Dtype::F64, 1);
    const std::vector<backend::RunRequest> requests{base, base};
    const std::vector<StrategyId> ids{StrategyId::Slice2d, StrategyId::SliceOuter,
                                      StrategyId::ElementwiseBroadcast};
    std::vector<std::vector<double>> fractions(requests.size());
    backend::runGpuPoints(
        ids, requests, {},
        [&](std::size_t point) {
            backend::Progress progress;
            progress.report = [&, point](std::string_view, double fraction) {
                fractions[point].push_back(fraction);
            };
            return progress;
        },
        [](std::size_t, backend::GpuResults&&) { return true; });
    for (const auto& point : fractions) {
        ASSERT_FALSE(point.empty());
        EXPECT_TRUE(std::is_sorted(point.begin(), point.end()));
        EXPECT_DOUBLE_EQ(point.back(), 1.0);
        EXPECT_LT(point.front(), 1.0 / double(ids.size()));
    }
}

// The CLI's progress lines of a sweep with GPU and CPU strategies: runs_done never goes back,
// through the GPU worker's points and then the CPU strategy's, and ends at every run.
TEST(GpuSweep, CliSweepProgressNeverGoesBack) {
    REQUIRE_DEVICE();
    const auto out = std::filesystem::temp_directory_path() /
                     ("tst_gpusweep-progress-" + std::to_string(::getpid()) + ".json");
    const std::string command = std::string(SLICESCOPE_CLI) +
                                " sweep --param block --values 64,128,256 --shape 10x400x5 "
                                "--strategy slice-2d,elementwise-broadcast,cpu-serial --progress "
                                "-q -o " +
                                out.string();
    FILE* pipe = ::popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::vector<double> done;
    std::size_t runs = 0;
    char line[4096];
    while (std::fgets(line, sizeof line, pipe) != nullptr) {
        std::string text(line);
        while (!text.empty() && text.back() == '\n') {
            text.pop_back();
        }
        if (auto p = core::parseRunProgressLine(text); core::isProgressLine(text) && p) {
            done.push_back(p->sweep.runsDone);
            runs = p->sweep.runs;
        }
    }
    EXPECT_EQ(::pclose(pipe), 0) << command;
    std::filesystem::remove(out);
    ASSERT_FALSE(done.empty());
    EXPECT_EQ(runs, 9u);
    for (std::size_t i = 1; i < done.size(); ++i) {
        EXPECT_GE(done[i], done[i - 1]) << "line " << i << " went back";
    }
    EXPECT_DOUBLE_EQ(done.back(), 9.0);
}

TEST(GpuSweep, StopsWhenAskedAfterAPoint) {
    REQUIRE_DEVICE();
    backend::RunRequest base;
    base.problem = *problem::makeProblem({10, 40, 5}, problem::Dtype::F64, 1);
    std::vector<backend::RunRequest> requests(4, base);
    std::size_t calls = 0;
    backend::runGpuPoints({StrategyId::Slice2d}, requests, {}, nullptr,
                          [&](std::size_t, backend::GpuResults&&) { return ++calls < 2; });
    EXPECT_EQ(calls, 2u);
}

TEST(GpuSweep, MeasuresCeilings) {
    REQUIRE_DEVICE();
    auto c = backend::measureCeilings(0);
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_EQ(c->source, "measured");
    EXPECT_GT(c->pinnedHtoDGBps, 0);
    EXPECT_GT(c->pageableHtoDGBps, 0);
    // Device memory is far faster than any host link; FP32 FMA is at least as fast as FP64.
    EXPECT_GT(c->dramGBps, 5 * c->pinnedHtoDGBps);
    EXPECT_GT(c->fp64Gflops, 0);
    EXPECT_GE(c->fp32Gflops, c->fp64Gflops * 0.9);
    std::printf("ceilings: DRAM %.0f GB/s, pinned %.1f/%.1f GB/s, pageable %.1f/%.1f GB/s, FP64 "
                "%.0f Gflop/s, FP32 %.0f Gflop/s\n",
                c->dramGBps, c->pinnedHtoDGBps, c->pinnedDtoHGBps, c->pageableHtoDGBps,
                c->pageableDtoHGBps, c->fp64Gflops, c->fp32Gflops);
}

TEST(GpuSweep, CliSweepUsesOneWorkerAndStoresCeilings) {
    REQUIRE_DEVICE();
    const auto out = std::filesystem::temp_directory_path() /
                     ("tst_gpusweep-" + std::to_string(::getpid()) + ".json");
    const std::string command =
        std::string(SLICESCOPE_CLI) +
        " sweep --param block --values 64,128,256 --shape 100x4000x5 "
        "--strategy slice-2d,elementwise-broadcast,cpu-parallel --roofline -q -o " +
        out.string() + " > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    auto t = trace::readTrace(out);
    std::filesystem::remove(out);
    ASSERT_TRUE(t) << t.error().message;
    ASSERT_EQ(t->runs.size(), 9u);
    std::size_t setupNotes = 0, gpuRuns = 0;
    for (const auto& run : t->runs) {
        ASSERT_TRUE(run.sweep);
        EXPECT_EQ(run.sweep->param, "block");
        if (run.mode == trace::RunMode::MeasuredGpu) {
            ++gpuRuns;
            setupNotes += hasSetupNote(run) ? 1 : 0;
            ASSERT_TRUE(run.ceilings) << run.id;
            EXPECT_EQ(run.ceilings->source, "measured");
        }
    }
    EXPECT_EQ(gpuRuns, 6u);
    EXPECT_EQ(setupNotes, 1u); // one worker, one session, for all three points
    ASSERT_EQ(t->sweeps.size(), 1u);
    EXPECT_TRUE(t->sweeps[0].complete);
}

// The CLI's GPU runs go through a worker process: its request must carry every option, warm-up
// included (the worker once rebuilt the request by hand and dropped --warmup).
TEST(GpuSweep, CliGpuRunsKeepTheirWarmup) {
    REQUIRE_DEVICE();
    const auto out = std::filesystem::temp_directory_path() /
                     ("tst_gpusweep-warmup-" + std::to_string(::getpid()) + ".json");
    const std::string command = std::string(SLICESCOPE_CLI) +
                                " run --shape 10x400x5 --strategy slice-2d --warmup 2 --repeat 1 "
                                "-q -o " +
                                out.string() + " > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    auto t = trace::readTrace(out);
    std::filesystem::remove(out);
    ASSERT_TRUE(t) << t.error().message;
    ASSERT_EQ(t->runs.size(), 1u);
    const auto& run = t->runs[0];
    EXPECT_EQ(run.mode, trace::RunMode::MeasuredGpu);
    EXPECT_EQ(run.warmup, 2u);
    const auto warmKernels =
        std::count_if(run.activities.begin(), run.activities.end(), [](const trace::Activity& a) {
            return a.kind == trace::ActivityKind::Kernel && a.warmup;
        });
    EXPECT_EQ(warmKernels, 2);
}

} // namespace
} // namespace slicescope
