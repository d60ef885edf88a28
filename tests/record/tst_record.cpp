// Recording a real CUDA program through slicescope-cli (docs/recording.md, label gpu): recordme's
// kernels, geometry, copies and memset come back exactly, with API calls linked to them,
// theoretical occupancy per kernel, achieved occupancy with --counters, and the data kept however
// the program ends. Skips without a device.
#include "../gpu/gpuskip.h"
#include "slicescope/backend/gpubackend.h"
#include "slicescope/trace/tracejson.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace {

using slicescope::trace::ActivityKind;
using slicescope::trace::MemoryKind;
using TraceRun = slicescope::trace::Run;

struct CliResult {
    int exitStatus = -1;
    std::string out;
    std::string err;
};

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::filesystem::path workDir() {
    auto dir = std::filesystem::temp_directory_path() /
               ("slicescope-tst-record-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir);
    return dir;
}

CliResult runCli(const std::string& args) {
    const auto dir = workDir();
    const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
    const std::string command = std::string("'") + SLICESCOPE_CLI + "' " + args + " >'" +
                                out.string() + "' 2>'" + err.string() + "'";
    const int status = std::system(command.c_str());
    CliResult r;
    r.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = readFile(out);
    r.err = readFile(err);
    return r;
}

std::string describe(const CliResult& r) {
    return "exit " + std::to_string(r.exitStatus) + "\n--- stdout\n" + r.out + "--- stderr\n" +
           r.err;
}

std::string notes(const TraceRun& run) {
    std::string all;
    for (const auto& n : run.notes) {
        all += "  " + n + "\n";
    }
    return all;
}

bool hasNote(const TraceRun& run, const std::string& part) {
    return std::any_of(run.notes.begin(), run.notes.end(),
                       [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

class RecordGpu : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto detected = slicescope::backend::detectDevices();
        if (detected.devices.empty()) {
            GTEST_SKIP() << "no CUDA device: " << detected.why;
        }
    }

    // Records recordme ending as `how`; returns the run.
    TraceRun record(const std::string& how, int expectedExit, const std::string& options = "") {
        const auto trace = (workDir() / ("recordme-" + how + ".json")).string();
        const auto r = runCli("record " + options + " -o '" + trace + "' -- '" +
                              SLICESCOPE_RECORDME + "' " + how);
        EXPECT_EQ(r.exitStatus, expectedExit) << describe(r);
        EXPECT_NE(r.out.find("recordme: done (" + how + ")"), std::string::npos)
            << "the program's stdout passes through\n"
            << describe(r);
        auto parsed = slicescope::trace::readTrace(trace);
        EXPECT_TRUE(parsed) << (parsed ? "" : parsed.error().message) << "\n" << describe(r);
        if (!parsed || parsed->runs.size() != 1) {
            ADD_FAILURE() << "no recorded run";
            return {};
        }
        return std::move(parsed->runs.front());
    }
};

// recordme's known work (tests/record/recordme.cu).
void expectRecordmeWork(const TraceRun& run) {
    EXPECT_EQ(run.mode, slicescope::trace::RunMode::Recorded);
    EXPECT_FALSE(run.device.name.empty());
    EXPECT_GT(run.device.smCount, 0u);
    EXPECT_EQ(run.droppedRecords, 0u) << notes(run);

    std::multiset<std::tuple<std::uint64_t, MemoryKind, MemoryKind>> htod, dtoh;
    std::multiset<std::uint64_t> memsets;
    std::map<std::string, int> kernels;
    std::set<std::uint32_t> apiCorrelations;
    std::set<std::string> apiNames;
    for (const auto& a : run.activities) {
        if (a.kind == ActivityKind::Api) {
            apiCorrelations.insert(a.correlationId);
            apiNames.insert(std::string(run.name(a)));
        }
    }
    for (const auto& a : run.activities) {
        const std::string name(run.name(a));
        switch (a.kind) {
        case ActivityKind::HtoD:
            htod.insert({a.bytes, a.srcKind, a.dstKind});
            break;
        case ActivityKind::DtoH:
            dtoh.insert({a.bytes, a.srcKind, a.dstKind});
            break;
        case ActivityKind::Memset:
            memsets.insert(a.bytes);
            break;
        case ActivityKind::Kernel:
            ++kernels[name];
            EXPECT_GT(a.registersPerThread, 0) << name;
            EXPECT_GT(a.theoreticalOccupancy, 0.0f) << name << "\n" << notes(run);
            EXPECT_LE(a.theoreticalOccupancy, 1.0f) << name;
            EXPECT_GT(a.endNs, a.startNs) << name;
            EXPECT_EQ(apiCorrelations.count(a.correlationId), 1u)
                << name << ": launched by a recorded API call";
            if (name == "void fill<double>(double*, double, int)") {
                EXPECT_EQ(a.grid, (slicescope::Dim3{40, 1, 1}));
                EXPECT_EQ(a.block, (slicescope::Dim3{256, 1, 1}));
                EXPECT_EQ(a.staticSharedBytes, 0u);
                EXPECT_EQ(a.dynamicSharedBytes, 0u);
            } else if (name == "tile_sum(double const*, double*, int)") {
                EXPECT_EQ(a.grid, (slicescope::Dim3{8, 4, 1}));
                EXPECT_EQ(a.block, (slicescope::Dim3{32, 8, 1}));
                EXPECT_EQ(a.staticSharedBytes, 2048u);
                EXPECT_TRUE(a.dynamicSharedBytes == 0u || a.dynamicSharedBytes == 4096u)
                    << a.dynamicSharedBytes;
            }
            break;
        default:
            break;
        }
    }
    EXPECT_EQ(kernels.size(), 2u);
    EXPECT_EQ(kernels["void fill<double>(double*, double, int)"], 3);
    EXPECT_EQ(kernels["tile_sum(double const*, double*, int)"], 2);
    using T = std::tuple<std::uint64_t, MemoryKind, MemoryKind>;
    EXPECT_EQ(htod, (std::multiset<T>{{1'000'000, MemoryKind::Pageable, MemoryKind::Device},
                                      {262'144, MemoryKind::Pinned, MemoryKind::Device}}));
    EXPECT_EQ(dtoh, (std::multiset<T>{{1'000'000, MemoryKind::Device, MemoryKind::Pageable}}));
    EXPECT_EQ(memsets, (std::multiset<std::uint64_t>{65'536}));
    // recordme calls cudaMallocHost(double**, size); cuda_runtime.h's typed overload forwards to
    // cudaHostAlloc, which is the runtime call CUPTI sees (seen on the H200).
    for (const char* call :
         {"cudaMalloc", "cudaHostAlloc", "cudaMemcpy", "cudaMemset", "cudaDeviceSynchronize"}) {
        EXPECT_EQ(apiNames.count(call), 1u) << call << " is among the recorded API calls";
    }
}

TEST_F(RecordGpu, RecordsKnownKernelsGeometryAndCopiesExactly) {
    const TraceRun run = record("return", 0);
    expectRecordmeWork(run);
    EXPECT_EQ(run.exitStatus, 0);
    EXPECT_FALSE(hasNote(run, "without a final flush")) << notes(run);
    // Both dynamic shared-memory sizes were launched.
    std::set<std::uint32_t> dynamic;
    for (const auto& a : run.activities) {
        if (a.kind == ActivityKind::Kernel &&
            run.name(a) == "tile_sum(double const*, double*, int)") {
            dynamic.insert(a.dynamicSharedBytes);
        }
    }
    EXPECT_EQ(dynamic, (std::set<std::uint32_t>{0, 4096}));
}

TEST_F(RecordGpu, KeepsTheDataWhenTheProgramCallsExit) {
    const TraceRun run = record("exit", 7);
    expectRecordmeWork(run);
    EXPECT_EQ(run.exitStatus, 7);
}

TEST_F(RecordGpu, KeepsTheDataAfterUnderscoreExitThroughThePeriodicFlush) {
    const TraceRun run = record("_exit", 8);
    expectRecordmeWork(run);
    EXPECT_TRUE(hasNote(run, "ended without a final flush")) << notes(run);
}

TEST_F(RecordGpu, KeepsTheDataWhenTheProgramAborts) {
    const TraceRun run = record("abort", 134);
    expectRecordmeWork(run);
    EXPECT_TRUE(hasNote(run, "was ended by SIGABRT")) << notes(run);
}

TEST_F(RecordGpu, KeepsTheDataAfterAnUncaughtException) {
    const TraceRun run = record("throw", 134);
    expectRecordmeWork(run);
    EXPECT_TRUE(hasNote(run, "was ended by SIGABRT")) << notes(run);
}

TEST_F(RecordGpu, KeepsTheDataWhenTheProgramCrashes) {
    const TraceRun run = record("segv", 139);
    expectRecordmeWork(run);
    EXPECT_TRUE(hasNote(run, "was ended by SIGSEGV")) << notes(run);
}

TEST_F(RecordGpu, KeepsTheDataWhenTheProgramIsTerminated) {
    const TraceRun run = record("term", 143);
    expectRecordmeWork(run);
    EXPECT_TRUE(hasNote(run, "was ended by SIGTERM")) << notes(run);
}

TEST_F(RecordGpu, CountersGiveAchievedOccupancyPerKernel) {
    const TraceRun run = record("return", 0, "--counters");
    expectRecordmeWork(run);
    if (hasNote(run, "achieved occupancy unavailable")) {
        // Skipped only where the device cannot count; a profiler error fails below.
        if (const auto why = slicescope::gpuskip::skipReason(notes(run))) {
            GTEST_SKIP() << "no counters here (" << *why << "):\n" << notes(run);
        }
    }
    int measured = 0;
    for (const auto& a : run.activities) {
        if (a.kind == ActivityKind::Kernel) {
            EXPECT_FALSE(std::isnan(a.achievedOccupancy)) << run.name(a) << "\n" << notes(run);
            EXPECT_GT(a.achievedOccupancy, 0.0f) << run.name(a);
            EXPECT_LE(a.achievedOccupancy, 1.0f) << run.name(a);
            // Thread use is measured too (docs/trace-format.md, active_lane_share): some lane of
            // each executed warp instruction was active, at most all 32.
            EXPECT_FALSE(std::isnan(a.activeLaneShare)) << run.name(a) << "\n" << notes(run);
            EXPECT_GE(a.activeLaneShare, 1.0f / 32) << run.name(a);
            EXPECT_LE(a.activeLaneShare, 1.0f) << run.name(a);
            measured += std::isnan(a.achievedOccupancy) ? 0 : 1;
        }
    }
    EXPECT_EQ(measured, 5) << notes(run);
    EXPECT_TRUE(hasNote(run, "5 of 5 kernels measured")) << notes(run);
}

// Many launches: every kernel is recorded, none dropped, and the program's memory does not grow
// with the number of launches (bounded CUPTI buffers, streamed spool).
TEST_F(RecordGpu, ManyLaunchesAreAllRecordedInBoundedMemory) {
    auto recordMany = [&](long launches, long& peakKiB) {
        const auto trace = (workDir() / ("many-" + std::to_string(launches) + ".json")).string();
        const auto r = runCli("record -o '" + trace + "' -- '" + SLICESCOPE_RECORDME + "' many " +
                              std::to_string(launches));
        EXPECT_EQ(r.exitStatus, 0) << describe(r);
        const auto at = r.out.find("peak RSS ");
        peakKiB = at == std::string::npos ? -1 : std::atol(r.out.c_str() + at + 9);
        auto parsed = slicescope::trace::readTrace(trace);
        EXPECT_TRUE(parsed && parsed->runs.size() == 1);
        long kernels = 0;
        if (parsed && !parsed->runs.empty()) {
            const TraceRun& run = parsed->runs.front();
            EXPECT_EQ(run.droppedRecords, 0u) << notes(run);
            for (const auto& a : run.activities) {
                kernels += a.kind == ActivityKind::Kernel ? 1 : 0;
            }
        }
        std::filesystem::remove(trace);
        return kernels;
    };
    long smallPeak = 0, bigPeak = 0;
    EXPECT_EQ(recordMany(2'000, smallPeak), 2'000);
    EXPECT_EQ(recordMany(100'000, bigPeak), 100'000);
    ASSERT_GT(smallPeak, 0);
    ASSERT_GT(bigPeak, 0);
    RecordProperty("peak_rss_kib_2000_launches", std::to_string(smallPeak));
    RecordProperty("peak_rss_kib_100000_launches", std::to_string(bigPeak));
    std::printf("peak RSS: %ld KiB at 2,000 launches, %ld KiB at 100,000\n", smallPeak, bigPeak);
    // 50x the launches; the recorder's share must not grow with them (bounded pool: 24 x 2 MiB).
    EXPECT_LT(bigPeak - smallPeak, 64 * 1024) << "peak RSS grew with the number of launches";
}

} // namespace
