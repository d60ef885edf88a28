#include "slicescope/trace/runsummary.h"
#include "slicescope/trace/tracejson.h"
#include "slicescope/trace/tracelimits.h"
#include "trace/filebuffer.h"  // engine-internal: what readTrace reads a file into
#include "trace/tracewriter.h" // engine-internal: writeTraceLimited

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace slicescope::trace {
namespace {

namespace fs = std::filesystem;

const fs::path kImportDir = fs::path(SLICESCOPE_TEST_DATA_DIR) / "import";

constexpr std::int64_t kBaseNs = 1'764'675'720'123'456'789; // a CUPTI-like timestamp, ~1.7e18

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// A folder of its own for each test, removed afterwards.
class TempDir {
  public:
    TempDir() {
        path_ = fs::temp_directory_path() /
                ("tst_tracejson-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
        fs::remove_all(path_);
        fs::create_directories(path_);
    }
    ~TempDir() { fs::remove_all(path_); }
    const fs::path& path() const { return path_; }

  private:
    static inline int counter_ = 0;
    fs::path path_;
};

Activity activity(ActivityKind kind, std::int64_t startNs, std::int64_t endNs) {
    Activity a;
    a.kind = kind;
    a.startNs = startNs;
    a.endNs = endNs;
    return a;
}

// A trace with every run field set, every activity kind and every mode.
Trace fullTrace() {
    Trace trace;
    trace.generator = "tst_tracejson";

    Run gpu;
    gpu.id = "slice-middle";
    gpu.deviceIndex = 1; // measured with --devices, on the host's second GPU
    gpu.strategy = "slice-middle";
    gpu.mode = RunMode::MeasuredGpu;
    gpu.problem = problem::Problem{{100, 4000, 5}, problem::Dtype::F64, 1};
    gpu.device.id = "h200";
    gpu.device.name = "NVIDIA H200";
    gpu.device.computeMajor = 9;
    gpu.device.computeMinor = 0;
    gpu.device.smCount = 132;
    gpu.device.maxThreadsPerSm = 2048;
    gpu.device.memoryBandwidthGBps = 4800.5;
    gpu.device.globalMemoryBytes = 150'000'000'000ULL;
    gpu.device.sources["smCount"] = "sources are not stored in traces";
    LaunchInfo launch;
    launch.grid = {63, 1, 1};
    launch.block = {64, 2, 3};
    launch.workers = 4000;
    launch.elementsPerWorker = 500;
    launch.layout = "crn";
    launch.blockOption = "numba-cuda";
    launch.gridStride = true;
    launch.registersPerThread = 40;
    launch.staticSharedBytes = 1024;
    launch.dynamicSharedBytes = 2048;
    gpu.launch = launch;
    OccupancyInfo occupancy;
    occupancy.theoretical = 0.5;
    occupancy.achieved = 0.123456789012345;
    occupancy.threadSlotsBusy = 1.0 / 3.0;
    occupancy.limiter = "registers";
    occupancy.explanation = "Registers limit the SM to 16 blocks.";
    occupancy.activeBlocksPerSm = 16;
    occupancy.smBusyShare = 0.875;
    gpu.occupancy = occupancy;
    gpu.verification = Verification{true, 1e-300};
    gpu.memoryMode = "pinned";
    gpu.repeat = 3;
    gpu.warmup = 2;
    gpu.chunks = 8;
    gpu.streams = 4;
    gpu.wallNs = 987'654'321;
    gpu.createdAt = "2026-12-02T11:42:00Z";
    gpu.batch = "/home/u/session-runs/run-7";
    gpu.hidden = true;
    gpu.droppedRecords = 5;
    gpu.notes = {"no counters: \"not permitted\"", "second note\nwith a line break"};
    gpu.occupancySeries = {
        {kBaseNs, 0.0f}, {kBaseNs + 100'000, 0.4375f}, {kBaseNs + 200'000, 1.0f}};

    Activity api = activity(ActivityKind::Api, kBaseNs, kBaseNs + 5'000);
    api.nameId = gpu.intern("cudaMemcpyAsync");
    api.correlationId = 77;
    api.threadId = 4242;
    gpu.activities.push_back(api);
    for (const auto kind :
         {ActivityKind::HtoD, ActivityKind::DtoH, ActivityKind::DtoD, ActivityKind::HtoH}) {
        Activity copy = activity(kind, kBaseNs + 10'000, kBaseNs + 6'010'001);
        copy.bytes = 16'000'000;
        copy.srcKind = kind == ActivityKind::HtoD ? MemoryKind::Pinned : MemoryKind::Device;
        copy.dstKind = kind == ActivityKind::DtoH ? MemoryKind::Managed : MemoryKind::Array;
        copy.stream = 13;
        copy.correlationId = 78;
        copy.iteration = 2;
        copy.warmup = kind == ActivityKind::DtoH; // a warm-up iteration's copy
        copy.device = 1;                          // on the host's second GPU (--devices)
        if (kind == ActivityKind::DtoD) {
            copy.peerDevice = 2; // a peer copy from device 1 to device 2
        }
        gpu.activities.push_back(copy);
    }
    Activity kernel = activity(ActivityKind::Kernel, kBaseNs + 7'000'000, kBaseNs + 16'000'123);
    kernel.nameId = gpu.intern("slice_middle<double>(double*, \"crn\", int)\t\\");
    kernel.grid = {63, 2, 1};
    kernel.block = {64, 1, 4};
    kernel.registersPerThread = 40;
    kernel.staticSharedBytes = 48;
    kernel.dynamicSharedBytes = 96;
    kernel.stream = 13;
    kernel.correlationId = 79;
    kernel.theoreticalOccupancy = 0.5f;
    kernel.achievedOccupancy = 0.1234567f;
    kernel.activeLaneShare = 1.0f / 32;
    gpu.activities.push_back(kernel);
    Activity memset = activity(ActivityKind::Memset, kBaseNs + 16'100'000, kBaseNs + 16'100'000);
    memset.bytes = 4096;
    memset.dstKind = MemoryKind::Device;
    memset.stream = 13;
    gpu.activities.push_back(memset);
    Activity sync = activity(ActivityKind::Sync, kBaseNs + 6'000, kBaseNs + 16'000'200);
    sync.nameId = gpu.intern("cudaStreamSynchronize");
    sync.threadId = 4242;
    gpu.activities.push_back(sync);
    Activity host = activity(ActivityKind::Host, kBaseNs - 1'000'000, kBaseNs - 1);
    host.nameId = gpu.intern("layout C\u00d7R\u00d7N \xF0\x9F\x9A\x80"); // non-ASCII text
    gpu.activities.push_back(host);
    Activity overhead =
        activity(ActivityKind::Overhead, kBaseNs + 17'000'000, kBaseNs + 17'500'000);
    overhead.nameId = gpu.intern("CUPTI buffer flush");
    overhead.threadId = 9;
    gpu.activities.push_back(overhead);
    // The writer states the launch occupancy the run derives: the round trip keeps it.
    gpu.occupancy = occupancyWithLaunch(gpu);
    trace.runs.push_back(gpu);

    Run modelled;
    modelled.id = "one-worker";
    modelled.strategy = "one-worker";
    modelled.mode = RunMode::Modelled;
    modelled.problem = problem::Problem{{100, 4000, 5}, problem::Dtype::F32, 7};
    modelled.device.name = "NVIDIA GeForce GTX 1080 Ti";
    modelled.launch =
        LaunchInfo{{1, 1, 1}, {64, 1, 1}, 1, 2'000'000, "rcn", "numba", false, 0, 0, 0};
    modelled.occupancy = OccupancyInfo{0.03125, std::nullopt, 1.0 / 458752.0, "blocks", "",
                                       1,       std::nullopt, 2.0 / 7168.0,   "grid"};
    Activity modelledKernel = activity(ActivityKind::Kernel, 0, 1'200'000'000);
    modelledKernel.nameId = modelled.intern("one_worker");
    modelled.activities.push_back(modelledKernel);
    trace.runs.push_back(modelled);

    Run cpu;
    cpu.id = "cpu-parallel";
    cpu.strategy = "cpu-parallel";
    cpu.mode = RunMode::MeasuredCpu;
    cpu.problem = problem::Problem{{2, 3, 4}, problem::Dtype::F64, 1};
    cpu.device.name = "Example CPU";
    cpu.verification = Verification{false, std::numeric_limits<double>::quiet_NaN()};
    for (std::uint32_t thread = 0; thread < 3; ++thread) {
        Activity work = activity(ActivityKind::Host, kBaseNs + thread, kBaseNs + 1000 + thread);
        work.nameId = cpu.intern("compute");
        work.threadId = thread;
        work.iteration = std::uint16_t(thread);
        cpu.activities.push_back(work);
    }
    trace.runs.push_back(cpu);

    Run recorded;
    recorded.id = "recorded";
    recorded.strategy = "recorded";
    recorded.mode = RunMode::Recorded;
    recorded.device.name = "NVIDIA H200";
    recorded.command = "python3 seed.py --shape '100 4000 5'";
    recorded.exitStatus = -11;
    recorded.droppedRecords = std::numeric_limits<std::uint64_t>::max();
    trace.runs.push_back(recorded);

    Run imported;
    imported.id = "kineto-cnn";
    imported.strategy = "imported";
    imported.mode = RunMode::Imported;
    imported.device.name = "NVIDIA H200";
    imported.source = ImportSource{"kineto", "kineto-cnn \"step\".json"};
    Activity importedKernel = activity(ActivityKind::Kernel, kBaseNs, kBaseNs + 4'032);
    importedKernel.nameId = imported.intern("implicit_convolve_sgemm");
    importedKernel.grid = {256, 1, 1};
    importedKernel.block = {8, 8, 1};
    importedKernel.registersPerThread = 64;
    importedKernel.staticSharedBytes = 2304;
    importedKernel.theoreticalOccupancy = 0.5f;
    importedKernel.limiter = OccupancyLimiter::Registers;
    importedKernel.estimatedOccupancyPercent = 6;
    imported.activities.push_back(importedKernel);
    Activity unestimated = importedKernel;
    unestimated.limiter = OccupancyLimiter::SharedMemory;
    unestimated.estimatedOccupancyPercent = 0;
    imported.activities.push_back(unestimated);
    trace.runs.push_back(imported);

    Run projected;
    projected.id = "slice-middle-t4";
    projected.strategy = "slice-middle";
    projected.mode = RunMode::Projected;
    projected.problem = problem::Problem{{100, 4000, 5}, problem::Dtype::F64, 1};
    projected.device.id = "t4";
    projected.device.name = "Tesla T4";
    projected.projection = Projection{"slice-middle", "NVIDIA H200", "h200", "t4"};
    Activity projectedKernel = activity(ActivityKind::Kernel, kBaseNs, kBaseNs + 250'000);
    projectedKernel.nameId = projected.intern("slice_middle");
    projected.activities.push_back(projectedKernel);
    trace.runs.push_back(projected);
    return trace;
}

bool sameFloat(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

void expectSameActivity(const Run& runA, const Activity& a, const Run& runB, const Activity& b) {
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.startNs, b.startNs);
    EXPECT_EQ(a.endNs, b.endNs);
    EXPECT_EQ(a.bytes, b.bytes);
    EXPECT_EQ(a.grid, b.grid);
    EXPECT_EQ(a.block, b.block);
    EXPECT_EQ(runA.name(a), runB.name(b));
    EXPECT_EQ(a.correlationId, b.correlationId);
    EXPECT_EQ(a.stream, b.stream);
    EXPECT_EQ(a.threadId, b.threadId);
    EXPECT_EQ(a.staticSharedBytes, b.staticSharedBytes);
    EXPECT_EQ(a.dynamicSharedBytes, b.dynamicSharedBytes);
    EXPECT_EQ(a.registersPerThread, b.registersPerThread);
    EXPECT_EQ(a.iteration, b.iteration);
    EXPECT_EQ(a.warmup, b.warmup);
    EXPECT_EQ(a.srcKind, b.srcKind);
    EXPECT_EQ(a.dstKind, b.dstKind);
    EXPECT_TRUE(sameFloat(a.theoreticalOccupancy, b.theoreticalOccupancy));
    EXPECT_TRUE(sameFloat(a.achievedOccupancy, b.achievedOccupancy));
    EXPECT_TRUE(sameFloat(a.activeLaneShare, b.activeLaneShare));
    EXPECT_EQ(a.limiter, b.limiter);
    EXPECT_EQ(a.estimatedOccupancyPercent, b.estimatedOccupancyPercent);
    EXPECT_EQ(a.device, b.device);
    EXPECT_EQ(a.peerDevice, b.peerDevice);
}

void expectSameRun(const Run& a, const Run& b) {
    SCOPED_TRACE("run " + a.id);
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.strategy, b.strategy);
    EXPECT_EQ(a.mode, b.mode);
    EXPECT_EQ(a.problem, b.problem);
    EXPECT_EQ(a.device.id, b.device.id);
    EXPECT_EQ(a.device.name, b.device.name);
    EXPECT_EQ(a.device.computeCapability(), b.device.computeCapability());
    EXPECT_EQ(a.device.smCount, b.device.smCount);
    EXPECT_EQ(a.device.memoryBandwidthGBps, b.device.memoryBandwidthGBps);
    EXPECT_EQ(a.device.globalMemoryBytes, b.device.globalMemoryBytes);
    ASSERT_EQ(a.launch.has_value(), b.launch.has_value());
    if (a.launch) {
        EXPECT_EQ(a.launch->grid, b.launch->grid);
        EXPECT_EQ(a.launch->block, b.launch->block);
        EXPECT_EQ(a.launch->workers, b.launch->workers);
        EXPECT_EQ(a.launch->elementsPerWorker, b.launch->elementsPerWorker);
        EXPECT_EQ(a.launch->layout, b.launch->layout);
        EXPECT_EQ(a.launch->blockOption, b.launch->blockOption);
        EXPECT_EQ(a.launch->gridStride, b.launch->gridStride);
        EXPECT_EQ(a.launch->registersPerThread, b.launch->registersPerThread);
        EXPECT_EQ(a.launch->staticSharedBytes, b.launch->staticSharedBytes);
        EXPECT_EQ(a.launch->dynamicSharedBytes, b.launch->dynamicSharedBytes);
    }
    ASSERT_EQ(a.occupancy.has_value(), b.occupancy.has_value());
    if (a.occupancy) {
        EXPECT_EQ(a.occupancy->theoretical, b.occupancy->theoretical);
        EXPECT_EQ(a.occupancy->achieved, b.occupancy->achieved);
        EXPECT_EQ(a.occupancy->threadSlotsBusy, b.occupancy->threadSlotsBusy);
        EXPECT_EQ(a.occupancy->limiter, b.occupancy->limiter);
        EXPECT_EQ(a.occupancy->explanation, b.occupancy->explanation);
        EXPECT_EQ(a.occupancy->activeBlocksPerSm, b.occupancy->activeBlocksPerSm);
        EXPECT_EQ(a.occupancy->smBusyShare, b.occupancy->smBusyShare);
        EXPECT_EQ(a.occupancy->launchOccupancy, b.occupancy->launchOccupancy);
        EXPECT_EQ(a.occupancy->launchLimiter, b.occupancy->launchLimiter);
    }
    ASSERT_EQ(a.verification.has_value(), b.verification.has_value());
    if (a.verification) {
        EXPECT_EQ(a.verification->passed, b.verification->passed);
        EXPECT_TRUE(sameFloat(a.verification->maxAbsError, b.verification->maxAbsError));
    }
    EXPECT_EQ(a.memoryMode, b.memoryMode);
    EXPECT_EQ(a.repeat, b.repeat);
    EXPECT_EQ(a.warmup, b.warmup);
    EXPECT_EQ(a.chunks, b.chunks);
    EXPECT_EQ(a.streams, b.streams);
    EXPECT_EQ(a.wallNs, b.wallNs);
    EXPECT_EQ(a.createdAt, b.createdAt);
    EXPECT_EQ(a.batch, b.batch);
    EXPECT_EQ(a.hidden, b.hidden);
    EXPECT_EQ(a.command, b.command);
    EXPECT_EQ(a.exitStatus, b.exitStatus);
    EXPECT_EQ(a.droppedRecords, b.droppedRecords);
    EXPECT_EQ(a.notes, b.notes);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.projection, b.projection);
    EXPECT_EQ(a.deviceIndex, b.deviceIndex);
    ASSERT_EQ(a.occupancySeries.size(), b.occupancySeries.size());
    for (std::size_t i = 0; i < a.occupancySeries.size(); ++i) {
        EXPECT_EQ(a.occupancySeries[i].timeNs, b.occupancySeries[i].timeNs);
        EXPECT_EQ(a.occupancySeries[i].value, b.occupancySeries[i].value);
    }
    ASSERT_EQ(a.activities.size(), b.activities.size());
    for (std::size_t i = 0; i < a.activities.size(); ++i) {
        SCOPED_TRACE("activity " + std::to_string(i));
        expectSameActivity(a, a.activities[i], b, b.activities[i]);
    }
}

void expectSameTrace(const Trace& a, const Trace& b) {
    EXPECT_EQ(a.generator, b.generator);
    ASSERT_EQ(a.runs.size(), b.runs.size());
    for (std::size_t i = 0; i < a.runs.size(); ++i) {
        expectSameRun(a.runs[i], b.runs[i]);
    }
}

Error parseError(std::string_view text) {
    auto trace = parseTrace(text);
    if (trace) {
        ADD_FAILURE() << "accepted: " << text.substr(0, 300);
        return {};
    }
    return trace.error();
}

// ---------------------------------------------------------------------------------------------

TEST(TraceJson, RoundTripKeepsEveryFieldOfEveryKindAndMode) {
    const Trace original = fullTrace();
    const std::string text = toJson(original);
    auto parsed = parseTrace(text);
    ASSERT_TRUE(parsed) << parsed.error().message;
    expectSameTrace(original, *parsed);
    // Writing what was read gives the same text: nothing is lost or reordered on the way.
    EXPECT_EQ(toJson(*parsed), text);
}

// ReadOptions::takeRun: the GUI's loader builds each run's entry while the rest is parsed. The
// runs it is given are those the trace holds without it, in order, and the trace keeps none.
TEST(TraceJson, TakeRunGetsEveryRunInOrderAndTheTraceKeepsNone) {
    const Trace original = fullTrace();
    ASSERT_GE(original.runs.size(), 2U);
    const std::string text = toJson(original);
    std::vector<trace::Run> taken;
    ReadOptions options;
    options.takeRun = [&taken](trace::Run&& run) { taken.push_back(std::move(run)); };
    auto parsed = parseTrace(text, options);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_TRUE(parsed->runs.empty());
    EXPECT_EQ(parsed->generator, original.generator);
    ASSERT_EQ(taken.size(), original.runs.size());
    parsed->runs = std::move(taken);
    expectSameTrace(original, *parsed);
    EXPECT_EQ(toJson(*parsed), text);

    // A duplicate id is still an error, found after the first run was handed over.
    Trace twice;
    twice.runs = {original.runs[0], original.runs[0]};
    std::vector<std::string> ids;
    options.takeRun = [&ids](trace::Run&& run) { ids.push_back(run.id); };
    auto refused = parseTrace(toJson(twice), options);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("duplicate run id"), std::string::npos);
    EXPECT_EQ(ids, std::vector<std::string>{original.runs[0].id});
}

// Another tool's file, converted, goes through takeRun too.
TEST(TraceJson, TakeRunGetsTheRunsOfAnImportedFile) {
    std::ifstream in(kImportDir / "kineto-cnn.json", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(text.empty());
    const auto whole = parseTrace(text);
    ASSERT_TRUE(whole) << whole.error().message;
    ASSERT_FALSE(whole->runs.empty());
    std::vector<trace::Run> taken;
    ReadOptions options;
    options.takeRun = [&taken](trace::Run&& run) { taken.push_back(std::move(run)); };
    const auto parsed = parseTrace(text, options);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_TRUE(parsed->runs.empty());
    ASSERT_EQ(taken.size(), whole->runs.size());
    for (std::size_t i = 0; i < taken.size(); ++i) {
        EXPECT_EQ(taken[i].id, whole->runs[i].id);
        EXPECT_EQ(taken[i].activities.size(), whole->runs[i].activities.size());
    }
}

// The seed's one-worker on an H200 as a trace before "launch_occupancy" existed: 1 block of 64
// threads on 132 SMs of 64 warp slots each.
std::string oneWorkerWithoutLaunchOccupancy() {
    return R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "one-worker", )"
           R"("strategy": "one-worker", "mode": "modelled", "device": {"name": "NVIDIA H200", )"
           R"("sm_count": 132, "warp_size": 32, "max_threads_per_sm": 2048, "max_warps_per_sm": 64}, )"
           R"("launch": {"grid": [1, 1, 1], "block": [64, 1, 1], "workers": 1}, )"
           R"("occupancy": {"theoretical": 1, "thread_slots_busy": 0.0000037, "limiter": "warps", )"
           R"("active_blocks_per_sm": 32}, "activities": []}]})";
}

TEST(TraceJson, AnOldTraceDerivesTheLaunchOccupancyAndWritesIt) {
    auto parsed = parseTrace(oneWorkerWithoutLaunchOccupancy());
    ASSERT_TRUE(parsed) << parsed.error().message;
    const trace::Run& run = parsed->runs.at(0);
    EXPECT_FALSE(run.occupancy->launchOccupancy); // not in the file
    const auto launch = launchOccupancyOf(run);
    ASSERT_TRUE(launch);
    // 2 warps of 132 x 64 warp slots.
    EXPECT_DOUBLE_EQ(launch->occupancy, 2.0 / (132.0 * 64.0));
    EXPECT_EQ(launch->limiter, "grid");
    EXPECT_NE(launch->explanation.find("131 SMs idle"), std::string::npos) << launch->explanation;
    // Written back, the file states them.
    const auto json = nlohmann::json::parse(toJson(*parsed));
    const auto& occupancy = json["runs"][0]["occupancy"];
    EXPECT_DOUBLE_EQ(occupancy["launch_occupancy"].get<double>(), 2.0 / (132.0 * 64.0));
    EXPECT_EQ(occupancy["launch_limiter"], "grid");
}

TEST(TraceJson, StoredLaunchOccupancyWinsAndStaysWithinBounds) {
    const auto withFraction = [](std::string_view fraction) {
        std::string text = oneWorkerWithoutLaunchOccupancy();
        const std::string_view last = R"("active_blocks_per_sm": 32})";
        return text.replace(text.find(last), last.size(),
                            R"("active_blocks_per_sm": 32, "launch_occupancy": )" +
                                std::string(fraction) + R"(, "launch_limiter": "warps"})");
    };
    const std::string stored = withFraction("0.5");
    auto parsed = parseTrace(stored);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(launchOccupancyOf(parsed->runs.at(0))->occupancy, 0.5);
    EXPECT_EQ(launchOccupancyOf(parsed->runs.at(0))->limiter, "warps");
    EXPECT_FALSE(parseTrace(withFraction("1.5")));
    EXPECT_FALSE(parseTrace(withFraction("-0.1")));
    // Derived figures stay within 0..1 from a single block to many waves.
    for (std::uint32_t blocks : {1u, 131u, 132u, 4224u, 100000u}) {
        trace::Run run = parsed->runs.at(0);
        run.occupancy->launchOccupancy.reset();
        run.launch->grid.x = blocks;
        const auto launch = launchOccupancyOf(run);
        ASSERT_TRUE(launch);
        EXPECT_GT(launch->occupancy, 0.0) << blocks;
        EXPECT_LE(launch->occupancy, 1.0) << blocks;
        EXPECT_EQ(launch->limiter, blocks < 4224 ? "grid" : "warps") << blocks;
    }
}

TEST(TraceJson, OutputIsValidJsonWithTheDocumentedNames) {
    const auto json = nlohmann::json::parse(toJson(fullTrace()));
    EXPECT_EQ(json["format"], "slicescope-trace");
    EXPECT_EQ(json["version"], 1);
    EXPECT_EQ(json["generator"], "tst_tracejson");
    ASSERT_EQ(json["runs"].size(), 6U);
    const auto& gpu = json["runs"][0];
    EXPECT_EQ(gpu["mode"], "measured-gpu");
    EXPECT_EQ(gpu["problem"]["shape"], nlohmann::json::parse("[100, 4000, 5]"));
    EXPECT_EQ(gpu["problem"]["dtype"], "f64");
    EXPECT_EQ(gpu["problem"]["work_per_element"], 1);
    EXPECT_EQ(gpu["device"]["name"], "NVIDIA H200");
    EXPECT_EQ(gpu["device"]["compute_capability"], "9.0");
    EXPECT_FALSE(gpu["device"].contains("sources")) << "traces carry no sources";
    EXPECT_EQ(gpu["launch"]["grid"], nlohmann::json::parse("[63, 1, 1]"));
    EXPECT_EQ(gpu["launch"]["workers"], 4000);
    EXPECT_EQ(gpu["occupancy"]["theoretical"], 0.5);
    EXPECT_EQ(gpu["occupancy"]["limiter"], "registers");
    EXPECT_EQ(gpu["verification"]["passed"], true);
    EXPECT_EQ(gpu["chunks"], 8);
    EXPECT_EQ(gpu["streams"], 4);
    EXPECT_EQ(gpu["occupancy_series"][1], nlohmann::json::parse("[1764675720123556789, 0.4375]"));
    EXPECT_EQ(gpu["batch"], "/home/u/session-runs/run-7");
    EXPECT_FALSE(json["runs"][1].contains("batch")) << "an empty batch is left out";

    const auto& kernel = gpu["activities"][5];
    EXPECT_EQ(kernel["kind"], "kernel");
    EXPECT_EQ(kernel["name"], "slice_middle<double>(double*, \"crn\", int)\t\\");
    EXPECT_EQ(kernel["grid"], nlohmann::json::parse("[63, 2, 1]"));
    EXPECT_EQ(kernel["block"], nlohmann::json::parse("[64, 1, 4]"));
    EXPECT_EQ(kernel["registers_per_thread"], 40);
    EXPECT_EQ(kernel["static_shared_bytes"], 48);
    EXPECT_EQ(kernel["dynamic_shared_bytes"], 96);
    EXPECT_EQ(kernel["stream"], 13);
    EXPECT_EQ(kernel["correlation_id"], 79);
    EXPECT_FLOAT_EQ(kernel["active_lane_share"].get<float>(), 1.0f / 32);
    // Unknown (no counters) is left out, not written as a guess.
    EXPECT_FALSE(gpu["activities"][1].contains("active_lane_share"));
    const auto& htod = gpu["activities"][1];
    EXPECT_EQ(htod["kind"], "htod");
    EXPECT_EQ(htod["bytes"], 16000000);
    EXPECT_EQ(htod["src_kind"], "pinned");
    EXPECT_EQ(htod["dst_kind"], "array");
    EXPECT_EQ(htod["iteration"], 2);
    // Warm-up: the run's count, and a flag on the activities of warm-up iterations only.
    EXPECT_EQ(gpu["warmup"], 2);
    EXPECT_FALSE(htod.contains("warmup"));
    EXPECT_EQ(gpu["activities"][2]["kind"], "dtoh");
    EXPECT_EQ(gpu["activities"][2]["warmup"], true);
    EXPECT_FALSE(json["runs"][1].contains("warmup")) << "a run without warm-up leaves it out";
    // Fields that do not apply to a kind and hold their default are left out.
    EXPECT_FALSE(htod.contains("grid"));
    EXPECT_FALSE(htod.contains("name"));
    EXPECT_FALSE(gpu["activities"][0].contains("bytes"));
    EXPECT_EQ(gpu["activities"][0]["thread_id"], 4242);

    const auto& modelled = json["runs"][1];
    EXPECT_EQ(modelled["mode"], "modelled");
    EXPECT_TRUE(modelled["occupancy"]["achieved"].is_null());
    EXPECT_TRUE(modelled["verification"].is_null());
    const auto& cpu = json["runs"][2];
    EXPECT_TRUE(cpu["launch"].is_null());
    EXPECT_TRUE(cpu["verification"]["max_abs_error"].is_null()) << "NaN is written as null";
    const auto& recorded = json["runs"][3];
    EXPECT_EQ(recorded["mode"], "recorded");
    EXPECT_TRUE(recorded["problem"].is_null());
    EXPECT_EQ(recorded["exit_status"], -11);
    EXPECT_EQ(recorded["activities"], nlohmann::json::array());
    EXPECT_FALSE(recorded.contains("source")) << "only imported runs say where they came from";
    const auto& imported = json["runs"][4];
    EXPECT_EQ(imported["mode"], "imported");
    EXPECT_EQ(imported["source"], nlohmann::json::parse(R"({"format": "kineto", "file": )"
                                                        R"("kineto-cnn \"step\".json"})"));
    EXPECT_EQ(imported["activities"][0]["limiter"], "registers");
    EXPECT_EQ(imported["activities"][0]["estimated_occupancy_percent"], 6);
    EXPECT_EQ(imported["activities"][1]["estimated_occupancy_percent"], 0);
    EXPECT_FALSE(kernel.contains("limiter")) << "unknown limiters are left out";
    EXPECT_FALSE(kernel.contains("estimated_occupancy_percent")) << "so are absent estimates";
    const auto& projected = json["runs"][5];
    EXPECT_EQ(projected["mode"], "projected");
    EXPECT_EQ(
        projected["projection"],
        nlohmann::json::parse(R"({"source_run": "slice-middle", "source_device": )"
                              R"("NVIDIA H200", "source_preset": "h200", "target_preset": "t4"})"));
    EXPECT_FALSE(gpu.contains("projection")) << "only projected runs name their source";
}

TEST(TraceJson, IntegersRoundTripExactly) {
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = "limits";
    run.strategy = "recorded";
    run.mode = RunMode::Recorded;
    run.wallNs = kMaxDurationNs;
    run.droppedRecords = std::numeric_limits<std::uint64_t>::max();
    run.repeat = kMaxRepeat;
    run.exitStatus = std::numeric_limits<int>::min();
    // Neighbours of a 1.7e18 timestamp differ in the last digit, which a double cannot hold.
    const std::int64_t starts[] = {kBaseNs, kBaseNs + 1, kBaseNs + 3, 9'007'199'254'740'993};
    for (std::size_t i = 0; i < std::size(starts); ++i) {
        Activity a = activity(ActivityKind::HtoD, starts[i], starts[i] + 1);
        a.bytes = std::numeric_limits<std::uint64_t>::max() - i;
        a.correlationId = std::numeric_limits<std::uint32_t>::max();
        a.stream = std::numeric_limits<std::uint32_t>::max() - 1;
        run.activities.push_back(a);
    }
    // Timestamps are >= 0 (see RejectsNegativeTimestampsSoEveryDifferenceFitsIn64Bits), durations
    // at most kMaxDurationNs.
    constexpr std::int64_t kLast = std::numeric_limits<std::int64_t>::max();
    run.activities.push_back(activity(ActivityKind::Host, kLast - kMaxDurationNs, kLast));
    Activity kernel = activity(ActivityKind::Kernel, 0, 1);
    kernel.grid = {kMaxGridX, kMaxGridYZ, kMaxGridYZ};
    kernel.registersPerThread = kMaxRegistersPerThread;
    kernel.iteration = std::numeric_limits<std::uint16_t>::max();
    kernel.dynamicSharedBytes = kMaxSharedMemoryBytes;
    run.activities.push_back(kernel);

    const std::string text = toJson(trace);
    EXPECT_NE(text.find("\"start_ns\":1764675720123456790"), std::string::npos);
    EXPECT_NE(text.find("\"bytes\":18446744073709551615"), std::string::npos);
    EXPECT_NE(text.find("\"end_ns\":9223372036854775807"), std::string::npos);
    EXPECT_NE(text.find("\"wall_ns\": 9007199254740992"), std::string::npos);
    auto parsed = parseTrace(text);
    ASSERT_TRUE(parsed) << parsed.error().message;
    expectSameTrace(trace, *parsed);
}

TEST(TraceJson, DoublesRoundTripExactly) {
    Trace trace = fullTrace();
    auto& occupancy = *trace.runs[0].occupancy;
    // Occupancies are fractions (0..1): the extremes there are the smallest subnormal and 1.
    for (const double value : {0.1, 1.0 / 3.0, 5e-324, 1.0, 2.5e-7, 0.9999999999999999}) {
        occupancy.theoretical = value;
        auto parsed = parseTrace(toJson(trace));
        ASSERT_TRUE(parsed) << parsed.error().message;
        EXPECT_EQ(parsed->runs[0].occupancy->theoretical, value);
    }
    for (const float value : {0.1f, 1.0f / 3.0f, 1e-45f, 1.0f, 0.99999994f}) {
        trace.runs[0].activities[5].theoreticalOccupancy = value;
        auto parsed = parseTrace(toJson(trace));
        ASSERT_TRUE(parsed) << parsed.error().message;
        EXPECT_EQ(parsed->runs[0].activities[5].theoreticalOccupancy, value);
    }
}

TEST(TraceJson, ReadsTheFormatExample) {
    auto trace = readTrace(fs::path(SLICESCOPE_TEST_DATA_DIR) / "format-example.json");
    ASSERT_TRUE(trace) << trace.error().message;
    ASSERT_EQ(trace->runs.size(), 4U);
    const trace::Run& gpu = trace->runs[0];
    EXPECT_EQ(gpu.mode, RunMode::MeasuredGpu);
    ASSERT_TRUE(gpu.problem);
    EXPECT_EQ(gpu.problem->shape, (problem::Shape{100, 4000, 5}));
    EXPECT_EQ(gpu.device.smCount, 132U);
    EXPECT_EQ(gpu.device.computeCapability(), "9.0");
    ASSERT_TRUE(gpu.occupancy && gpu.occupancy->achieved);
    EXPECT_DOUBLE_EQ(*gpu.occupancy->achieved, 0.0234);
    ASSERT_EQ(gpu.activities.size(), 10U);
    EXPECT_EQ(gpu.activities[1].startNs, 1'764'675'720'000'001'500);
    EXPECT_EQ(gpu.name(gpu.activities[2]),
              "slice_outer<double, \"rcn\">(double*, double const*, int)");
    EXPECT_EQ(gpu.activities[2].dynamicSharedBytes, 16U);
    EXPECT_EQ(gpu.occupancySeries.size(), 2U);
    EXPECT_EQ(trace->runs[1].mode, RunMode::Modelled);
    EXPECT_FALSE(trace->runs[1].occupancy->achieved);
    EXPECT_EQ(trace->runs[2].problem->dtype, problem::Dtype::F32);
    EXPECT_EQ(trace->runs[2].problem->workPerElement, 3U);
    EXPECT_EQ(trace->runs[2].activities[1].iteration, 1U);
    EXPECT_EQ(trace->runs[2].warmup, 1U);
    EXPECT_TRUE(trace->runs[2].activities[2].warmup);
    EXPECT_FALSE(trace->runs[2].activities[1].warmup);
    EXPECT_FALSE(trace->runs[3].problem);
    EXPECT_EQ(trace->runs[3].exitStatus, 3);
    EXPECT_EQ(trace->runs[3].droppedRecords, 12U);
    // A trace written before pipelines has no chunks or streams: one of each.
    EXPECT_EQ(gpu.chunks, 1U);
    EXPECT_EQ(gpu.streams, 1U);
}

TEST(TraceJson, InternsEachNameOnce) {
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = "names";
    run.strategy = "recorded";
    run.mode = RunMode::Recorded;
    for (int i = 0; i < 1000; ++i) {
        Activity a = activity(ActivityKind::Api, i, i + 1);
        a.nameId = run.intern(i % 2 == 0 ? "cudaLaunchKernel" : "cudaMemcpy");
        run.activities.push_back(a);
    }
    auto parsed = parseTrace(toJson(trace));
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->runs[0].strings.size(), 3U); // "", and the two names
    EXPECT_EQ(parsed->runs[0].name(parsed->runs[0].activities[999]), "cudaMemcpy");
}

TEST(TraceJson, NameTableInternsLikeRunIntern) {
    trace::Run run;
    const std::uint32_t existing = run.intern("existing");
    NameTable names(run);
    EXPECT_EQ(names.intern(""), 0U);
    EXPECT_EQ(names.intern("existing"), existing);
    const std::uint32_t fresh = names.intern("fresh");
    EXPECT_EQ(run.strings.at(fresh), "fresh");
    for (int i = 0; i < 100; ++i) {
        names.intern("name " + std::to_string(i)); // grows the table past rehashes
    }
    EXPECT_EQ(names.intern("fresh"), fresh);
    EXPECT_EQ(names.intern("name 42"), run.intern("name 42"));
    EXPECT_EQ(run.strings.size(), 103U);
}

TEST(TraceJson, InvalidUtf8InANameIsReplacedNotWrittenRaw) {
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = "bad-bytes";
    run.strategy = "recorded";
    run.mode = RunMode::Recorded;
    Activity a = activity(ActivityKind::Kernel, 1, 2);
    a.nameId = run.intern(std::string("k\xFF\xC3(\x01") + '\0' + "end");
    run.activities.push_back(a);
    const std::string text = toJson(trace);
    EXPECT_TRUE(nlohmann::json::accept(text));
    auto parsed = parseTrace(text);
    ASSERT_TRUE(parsed) << parsed.error().message;
    EXPECT_EQ(parsed->runs[0].name(parsed->runs[0].activities[0]),
              std::string("k\xEF\xBF\xBD\xEF\xBF\xBD(\x01") + '\0' + "end");
}

TEST(TraceJson, ReadsEscapesAndIgnoresUnknownFields) {
    const std::string text = R"({"version": 1, "future": {"a": [1, 2, {"b": null}]}, "runs": [
        {"id": "r\u00e9\ud83d\ude80\n", "strategy": "x", "mode": "recorded", "device": {"name": "d"},
         "activities": [{"end_ns": 2, "kind": "api", "start_ns": 1, "name": "a\/b", "later": [true, false]}],
         "new_run_field": 1.5e3}],
        "format": "slicescope-trace"})";
    auto trace = parseTrace(text);
    ASSERT_TRUE(trace) << trace.error().message;
    EXPECT_EQ(trace->runs[0].id, "r\u00e9\xF0\x9F\x9A\x80\n");
    EXPECT_EQ(trace->runs[0].name(trace->runs[0].activities[0]), "a/b");
    EXPECT_EQ(trace->runs[0].activities[0].endNs, 2);
}

// ---------------------------------------------------------------------------------------------
// Rejection of malformed input: each case must give Error::Code::Parse and say where and what.

struct Malformed {
    const char* name;
    std::string text;
    const char* expected; // a piece of the message
};

std::string withRun(const std::string& runFields, const std::string& activities = "[]") {
    return R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "r", "strategy": "s", "mode": "modelled", "device": {"name": "d"}, )" +
           runFields + (runFields.empty() ? "" : ", ") + "\"activities\": " + activities + "}]}";
}

std::string replaced(std::string text, std::string_view from, std::string_view to) {
    return text.replace(text.find(from), from.size(), to);
}

std::string withActivity(const std::string& fields) {
    return withRun("", R"([{"kind": "api", "start_ns": 1, "end_ns": 2}, {)" + fields + "}]");
}

std::vector<Malformed> malformedCases() {
    static constexpr char kWithNul[] =
        "{\"format\": \"slicescope-trace\",\0 \"version\": 1, \"runs\": []}";
    const std::string deep(100000, '[');
    return {
        {"empty file", "", "empty"},
        {"only whitespace", " \n\t ", "empty"},
        {"not an object", "[1, 2]", "expected a JSON object"},
        {"null document", "null", "expected a JSON object"},
        {"trailing garbage", withRun("") + " x", "after the end"},
        {"two documents", withRun("") + withRun(""), "after the end"},
        {"wrong format", R"({"format": "chrome-trace", "version": 1, "runs": []})",
         "not a SliceScope trace"},
        {"format not a string", R"({"format": 1, "version": 1, "runs": []})",
         "\"format\" must be a string"},
        {"missing format", R"({"version": 1, "runs": []})", "missing the field \"format\""},
        {"future version", R"({"format": "slicescope-trace", "version": 2, "runs": []})",
         "unsupported trace version 2"},
        {"version zero", R"({"format": "slicescope-trace", "version": 0, "runs": []})",
         "unsupported trace version 0"},
        {"version as text", R"({"format": "slicescope-trace", "version": "1", "runs": []})",
         "\"version\" must be a whole number"},
        {"version fractional", R"({"format": "slicescope-trace", "version": 1.5, "runs": []})",
         "\"version\" must be a whole number"},
        {"missing version", R"({"format": "slicescope-trace", "runs": []})",
         "missing the field \"version\""},
        {"missing runs", R"({"format": "slicescope-trace", "version": 1})",
         "missing the field \"runs\""},
        {"runs not an array", R"({"format": "slicescope-trace", "version": 1, "runs": {}})",
         "\"runs\" must be an array"},
        {"run not an object", R"({"format": "slicescope-trace", "version": 1, "runs": [3]})",
         "a run must be an object"},
        {"duplicate field",
         R"({"format": "slicescope-trace", "format": "slicescope-trace", "version": 1, "runs": []})",
         "duplicate field \"format\""},
        {"run missing mode",
         R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "r", "strategy": "s", "device": {"name": "d"}, "activities": []}]})",
         "missing the field \"mode\""},
        {"run missing device",
         R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "r", "strategy": "s", "mode": "modelled", "activities": []}]})",
         "missing the field \"device\""},
        {"run missing activities",
         R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "r", "strategy": "s", "mode": "modelled", "device": {"name": "d"}}]})",
         "missing the field \"activities\""},
        {"unknown mode", replaced(withRun(""), "modelled", "guessed"),
         "unknown run mode 'guessed'"},
        {"id not a string", replaced(withRun(""), "\"id\": \"r\"", "\"id\": 7"),
         "\"id\" must be a string"},
        {"device without name",
         R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "r", "strategy": "s", "mode": "modelled", "device": {"sm_count": 1}, "activities": []}]})",
         "name"},
        {"device field of wrong type",
         R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "r", "strategy": "s", "mode": "modelled", "device": {"name": "d", "sm_count": "many"}, "activities": []}]})",
         "sm_count"},
        {"device not an object",
         R"({"format": "slicescope-trace", "version": 1, "runs": [{"id": "r", "strategy": "s", "mode": "modelled", "device": "H200", "activities": []}]})",
         "\"device\" must be an object"},
        {"problem with a zero dimension",
         withRun(R"("problem": {"shape": [100, 0, 5], "dtype": "f64", "work_per_element": 1})"),
         "invalid \"problem\""},
        {"problem shape of two",
         withRun(R"("problem": {"shape": [100, 5], "dtype": "f64", "work_per_element": 1})"),
         "exactly 3"},
        {"problem shape of four",
         withRun(R"("problem": {"shape": [1, 1, 1, 1], "dtype": "f64", "work_per_element": 1})"),
         "exactly 3"},
        {"problem overflowing",
         withRun(
             R"("problem": {"shape": [4294967296, 4294967296, 2], "dtype": "f64", "work_per_element": 1})"),
         "invalid \"problem\""},
        {"problem bad dtype",
         withRun(R"("problem": {"shape": [1, 1, 1], "dtype": "f16", "work_per_element": 1})"),
         "dtype"},
        {"problem missing shape", withRun(R"("problem": {"dtype": "f64"})"),
         "missing the field \"shape\""},
        {"problem work zero", withRun(R"("problem": {"shape": [1, 1, 1], "work_per_element": 0})"),
         "invalid \"problem\""},
        {"launch missing workers", withRun(R"("launch": {"grid": [1, 1, 1], "block": [64, 1, 1]})"),
         "missing the field \"workers\""},
        {"launch grid stride not bool",
         withRun(
             R"("launch": {"grid": [1, 1, 1], "block": [64, 1, 1], "workers": 1, "grid_stride": 1})"),
         "true or false"},
        {"occupancy achieved as text",
         withRun(
             R"("occupancy": {"theoretical": 1, "thread_slots_busy": 0, "limiter": "warps", "achieved": "high"})"),
         "\"achieved\" must be a number"},
        {"verification missing passed", withRun(R"("verification": {"max_abs_error": 0})"),
         "missing the field \"passed\""},
        {"repeat negative", withRun(R"("repeat": -1)"), "\"repeat\" must be a whole number >= 0"},
        {"repeat too large", withRun(R"("repeat": 4294967296)"), "\"repeat\" is too large"},
        {"exit status out of range", withRun(R"("exit_status": 4294967296)"),
         "\"exit_status\" is out of range"},
        {"notes not strings", withRun(R"("notes": [1])"), "\"notes\" must be a string"},
        {"series sample of three", withRun(R"("occupancy_series": [[1, 0.5, 2]])"),
         "[time_ns, value]"},
        {"series sample not an array", withRun(R"("occupancy_series": [1])"), "[time_ns, value]"},
        {"activities not an array", withRun("", "{}"), "\"activities\" must be an array"},
        {"activity not an object", withRun("", "[1]"), "an activity must be an object"},
        {"activity missing kind", withActivity(R"("start_ns": 1, "end_ns": 2)"),
         "missing the field \"kind\""},
        {"activity missing start", withActivity(R"("kind": "api", "end_ns": 2)"),
         "missing the field \"start_ns\""},
        {"activity missing end", withActivity(R"("kind": "api", "start_ns": 2)"),
         "missing the field \"end_ns\""},
        {"end before start", withActivity(R"("kind": "api", "start_ns": 5, "end_ns": 4)"),
         "\"end_ns\" (4) is before \"start_ns\" (5)"},
        {"unknown kind", withActivity(R"("kind": "teleport", "start_ns": 1, "end_ns": 2)"),
         "unknown activity kind 'teleport'"},
        {"kind not a string", withActivity(R"("kind": 4, "start_ns": 1, "end_ns": 2)"),
         "\"kind\" must be a string"},
        {"unknown memory kind",
         withActivity(R"("kind": "htod", "start_ns": 1, "end_ns": 2, "src_kind": "disk")"),
         "unknown memory kind 'disk'"},
        {"start as text", withActivity(R"("kind": "api", "start_ns": "1", "end_ns": 2)"),
         "\"start_ns\" must be a whole number, not a string"},
        {"start as a double", withActivity(R"("kind": "api", "start_ns": 1.5, "end_ns": 2)"),
         "\"start_ns\" must be a whole number"},
        {"start with exponent", withActivity(R"("kind": "api", "start_ns": 1e18, "end_ns": 2)"),
         "\"start_ns\" must be a whole number"},
        {"start past int64",
         withActivity(R"("kind": "api", "start_ns": 9223372036854775808, "end_ns": 2)"),
         "does not fit in 64 bits"},
        {"start far past int64",
         withActivity(R"("kind": "api", "start_ns": 123456789012345678901234567890, "end_ns": 2)"),
         "does not fit in 64 bits"},
        {"bytes past uint64",
         withActivity(
             R"("kind": "htod", "start_ns": 1, "end_ns": 2, "bytes": 18446744073709551616)"),
         "\"bytes\" is too large"},
        {"bytes negative",
         withActivity(R"("kind": "htod", "start_ns": 1, "end_ns": 2, "bytes": -1)"),
         "\"bytes\" must be a whole number >= 0"},
        {"stream past uint32",
         withActivity(R"("kind": "kernel", "start_ns": 1, "end_ns": 2, "stream": 4294967296)"),
         "\"stream\" is too large"},
        {"registers past uint16",
         withActivity(
             R"("kind": "kernel", "start_ns": 1, "end_ns": 2, "registers_per_thread": 65536)"),
         "\"registers_per_thread\" is too large"},
        {"grid of two",
         withActivity(R"("kind": "kernel", "start_ns": 1, "end_ns": 2, "grid": [1, 2])"),
         "exactly 3"},
        {"grid of four",
         withActivity(R"("kind": "kernel", "start_ns": 1, "end_ns": 2, "grid": [1, 2, 3, 4])"),
         "exactly 3"},
        {"grid not an array",
         withActivity(R"x("kind": "kernel", "start_ns": 1, "end_ns": 2, "grid": "(1,1,1)")x"),
         "\"grid\" must be an array"},
        {"occupancy huge",
         withActivity(
             R"("kind": "kernel", "start_ns": 1, "end_ns": 2, "theoretical_occupancy": 1e999)"),
         "out of range"},
        {"occupancy beyond float",
         withActivity(
             R"("kind": "kernel", "start_ns": 1, "end_ns": 2, "achieved_occupancy": 1e39)"),
         "out of range"},
        {"NaN literal",
         withActivity(R"("kind": "kernel", "start_ns": 1, "end_ns": 2, "achieved_occupancy": NaN)"),
         "must be a number"},
        {"leading zero", withActivity(R"("kind": "api", "start_ns": 01, "end_ns": 2)"),
         "leading zero"},
        {"plus sign", withActivity(R"("kind": "api", "start_ns": +1, "end_ns": 2)"),
         "must be a whole number"},
        {"bare minus", withActivity(R"("kind": "api", "start_ns": -, "end_ns": 2)"),
         "malformed number"},
        {"dot without digits",
         withActivity(
             R"("kind": "kernel", "start_ns": 1, "end_ns": 2, "theoretical_occupancy": 1.)"),
         "digits must follow"},
        {"duplicate activity field",
         withActivity(R"("kind": "api", "start_ns": 1, "start_ns": 1, "end_ns": 2)"),
         "duplicate field \"start_ns\""},
        {"trailing comma in object", withActivity(R"("kind": "api", "start_ns": 1, "end_ns": 2,)"),
         "must be a string"},
        {"trailing comma in array",
         withRun("", R"([{"kind": "api", "start_ns": 1, "end_ns": 2},])"),
         "an activity must be an object"},
        {"single quotes", withActivity(R"('kind': 'api', "start_ns": 1, "end_ns": 2)"),
         "must be a string"},
        {"comment", withActivity(R"(/* c */ "kind": "api", "start_ns": 1, "end_ns": 2)"),
         "must be a string"},
        {"missing colon", withActivity(R"("kind" "api", "start_ns": 1, "end_ns": 2)"),
         "expected ':'"},
        {"missing comma", withActivity(R"("kind": "api" "start_ns": 1, "end_ns": 2)"),
         "expected ',' or '}'"},
        {"unterminated string", R"({"format": "slicescope-trace)", "truncated"},
        {"invalid escape",
         withActivity(R"("kind": "api", "start_ns": 1, "end_ns": 2, "name": "a\qb")"),
         "invalid escape"},
        {"short unicode escape",
         withActivity(R"("kind": "api", "start_ns": 1, "end_ns": 2, "name": "\u12")"),
         "four hex digits"},
        {"lone high surrogate",
         withActivity(R"("kind": "api", "start_ns": 1, "end_ns": 2, "name": "\ud800x")"),
         "surrogate"},
        {"lone low surrogate",
         withActivity(R"("kind": "api", "start_ns": 1, "end_ns": 2, "name": "\udc00")"),
         "surrogate"},
        {"raw control character",
         withActivity("\"kind\": \"api\", \"start_ns\": 1, \"end_ns\": 2, \"name\": \"a\x01b\""),
         "control character"},
        {"invalid UTF-8 byte",
         withActivity("\"kind\": \"api\", \"start_ns\": 1, \"end_ns\": 2, \"name\": \"a\xFF\""),
         "invalid UTF-8"},
        {"overlong UTF-8",
         withActivity("\"kind\": \"api\", \"start_ns\": 1, \"end_ns\": 2, \"name\": \"\xC0\xAF\""),
         "invalid UTF-8"},
        {"UTF-8 surrogate",
         withActivity(
             "\"kind\": \"api\", \"start_ns\": 1, \"end_ns\": 2, \"name\": \"\xED\xA0\x80\""),
         "invalid UTF-8"},
        {"truncated UTF-8",
         withActivity("\"kind\": \"api\", \"start_ns\": 1, \"end_ns\": 2, \"name\": \"\xE2\x82\""),
         "invalid UTF-8"},
        {"invalid UTF-8 in a key",
         withActivity("\"k\xFF\": 1, \"kind\": \"api\", \"start_ns\": 1, \"end_ns\": 2"),
         "invalid UTF-8"},
        {"deep nesting in an unknown field",
         R"({"format": "slicescope-trace", "version": 1, "x": )" + deep, "nested deeper than 64"},
        {"deep nesting in the device",
         replaced(withRun(""), "{\"name\": \"d\"}", "{\"name\": \"d\", \"x\": " + deep + "}"),
         "nested deeper than 64"},
        {"NUL byte", std::string(kWithNul, sizeof kWithNul - 1), "byte 0x00"},
    };
}

TEST(TraceJson, RejectsMalformedInputWithAParseErrorSayingWhereAndWhat) {
    for (const auto& bad : malformedCases()) {
        SCOPED_TRACE(bad.name);
        const Error error = parseError(bad.text);
        EXPECT_EQ(error.code, Error::Code::Parse);
        EXPECT_NE(error.message.find(bad.expected), std::string::npos) << error.message;
        EXPECT_EQ(error.message.rfind("byte ", 0), 0U) << error.message;
    }
}

TEST(TraceJson, ErrorsNameTheRunAndActivity) {
    const std::string text = withRun("", R"([{"kind": "api", "start_ns": 1, "end_ns": 2},
        {"kind": "api", "start_ns": 1, "end_ns": 2}, {"kind": "api", "start_ns": 3, "end_ns": 2}])");
    const Error error = parseError(text);
    EXPECT_NE(error.message.find("(run 0, activity 2)"), std::string::npos) << error.message;
    // The offset points at the activity's opening brace.
    const std::size_t offset = text.find("{\"kind\": \"api\", \"start_ns\": 3");
    EXPECT_EQ(error.message.rfind("byte " + std::to_string(offset) + " ", 0), 0U) << error.message;
}

// Found by fuzz_tracereader (tests/data/fuzz-regressions/tracereader/
// negative-timestamps-difference-overflow.json): an activity from INT64_MIN to INT64_MAX was
// accepted, and its duration, or its start relative to the run's first activity, overflowed a
// signed 64-bit integer in every consumer (the CSV export first). Timestamps are >= 0, so any
// two of them differ by at most INT64_MAX.
TEST(TraceJson, RejectsNegativeTimestampsSoEveryDifferenceFitsIn64Bits) {
    const std::pair<std::string, const char*> cases[] = {
        {withActivity(R"("kind": "api", "start_ns": -1, "end_ns": 2)"),
         "\"start_ns\" must be >= 0"},
        {withActivity(
             R"("kind": "api", "start_ns": -9223372036854775808, "end_ns": 9223372036854775807)"),
         "\"start_ns\" must be >= 0"},
        {withActivity(R"("kind": "api", "end_ns": -2, "start_ns": -3)"), "\"end_ns\" must be >= 0"},
        {withRun(R"("occupancy_series": [[-1, 0.5]])"), "\"occupancy_series time\" must be >= 0"},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        const Error error = parseError(text);
        EXPECT_EQ(error.code, Error::Code::Parse);
        EXPECT_NE(error.message.find(expected), std::string::npos) << error.message;
    }
    const fs::path finding = fs::path(SLICESCOPE_TEST_DATA_DIR) / "fuzz-regressions" /
                             "tracereader" / "negative-timestamps-difference-overflow.json";
    // The finding breaks other limits too (RejectsFiguresBeyondPhysicalLimits); the reader stops at
    // the first, its "repeat". The cases above check the timestamps alone.
    auto rejected = readTrace(finding);
    ASSERT_FALSE(rejected);
    EXPECT_EQ(rejected.error().code, Error::Code::Parse) << rejected.error().message;

    // The latest interval left ends at INT64_MAX; its duration fits (and is at most
    // kMaxDurationNs, RejectsFiguresBeyondPhysicalLimits).
    auto latest = parseTrace(withActivity(
        R"("kind": "host", "start_ns": 9214364837600034815, "end_ns": 9223372036854775807)"));
    ASSERT_TRUE(latest) << latest.error().message;
    EXPECT_EQ(latest->runs[0].activities[1].durationNs(), kMaxDurationNs);
}

// Found by fuzz_device (tests/data/fuzz-regressions/device/registers-per-sm-past-uint32.json):
// deviceFromJson, which reads a trace's "device" and the presets, took 655364294967296 for the
// 32-bit "registers_per_sm" and kept its low bits, 3825205248. A figure the field cannot hold is
// a Parse error naming the field; compute_capability must read "M.m".
// A device built in memory (an importer's) with a compute capability the format cannot write,
// as fuzz_ncuimport found (minor 1000): the limits name it, so the importer leaves it out.
TEST(TraceJson, LimitsNameAComputeCapabilityTheFormatCannotHold) {
    device::DeviceSpec d;
    d.name = "d";
    d.computeMajor = 9;
    d.computeMinor = 1000;
    const auto problem = deviceLimitError(d);
    ASSERT_TRUE(problem);
    EXPECT_NE(problem->find("\"compute_capability\" is 9.1000"), std::string::npos) << *problem;
    d.computeMinor = 0;
    EXPECT_FALSE(deviceLimitError(d));
    d.computeMajor = 0; // unknown, as an Nsight Compute CSV without its CC column gives
    EXPECT_FALSE(deviceLimitError(d));
}

TEST(TraceJson, RejectsDeviceFiguresTheFieldCannotHold) {
    const std::pair<const char*, const char*> cases[] = {
        {R"("registers_per_sm": 655364294967296)", "\"registers_per_sm\""},
        {R"("sm_count": 4294967296)", "\"sm_count\""},
        {R"("warp_size": 18446744073709551615)", "\"warp_size\""},
        {R"("clock_mhz": -1980)", "\"clock_mhz\""},
        {R"("compute_capability": "99999999999.0")", "\"compute_capability\""},
        {R"("compute_capability": "9.0 beta")", "\"compute_capability\""},
        {R"("compute_capability": "-9.-1")", "\"compute_capability\""},
    };
    for (const auto& [figure, expected] : cases) {
        SCOPED_TRACE(figure);
        const Error error = parseError(replaced(withRun(""), R"({"name": "d"})",
                                                std::string(R"({"name": "d", )") + figure + "}"));
        EXPECT_EQ(error.code, Error::Code::Parse);
        EXPECT_NE(error.message.find("invalid \"device\""), std::string::npos) << error.message;
        EXPECT_NE(error.message.find(expected), std::string::npos) << error.message;
    }
    // The largest values the limits allow still read, unchanged (RejectsFiguresBeyondPhysicalLimits
    // has what lies between a field's range and its limit).
    auto largest = parseTrace(replaced(
        withRun(""), R"({"name": "d"})",
        R"({"name": "d", "sm_count": 1024, "global_memory_bytes": 17592186044416, "compute_capability": "12.1"})"));
    ASSERT_TRUE(largest) << largest.error().message;
    EXPECT_EQ(largest->runs[0].device.smCount, kMaxSmCount);
    EXPECT_EQ(largest->runs[0].device.globalMemoryBytes, kMaxGlobalMemoryBytes);
    EXPECT_EQ(largest->runs[0].device.computeCapability(), "12.1");
}

// A number beyond a double (1e400), which the cursor takes and nlohmann::json (the device
// object's reader) refuses, and a whole number beyond 64 bits (30 digits, which nlohmann::json
// reads as a double), were both said to be "not valid JSON": the message names the field and
// says that its number is out of range. So does a sweep point's.
// device_index (runs of --devices): written only when set, read back, bounded.
TEST(TraceJson, DeviceIndexIsWrittenOnlyForRunsOfSeveralGpusAndBounded) {
    Trace trace = fullTrace();
    const std::string text = toJson(trace);
    EXPECT_NE(text.find("\"device_index\": 1"), std::string::npos);
    for (auto& run : trace.runs) {
        run.deviceIndex.reset();
    }
    const std::string none = toJson(trace);
    EXPECT_EQ(none.find("device_index"), std::string::npos);
    auto parsed = parseTrace(none);
    ASSERT_TRUE(parsed) << parsed.error().message;
    for (const auto& run : parsed->runs) {
        EXPECT_FALSE(run.deviceIndex) << run.id;
    }
    const Error tooLarge = parseError(withRun(R"("device_index": 1024, )"));
    EXPECT_NE(tooLarge.message.find("device_index"), std::string::npos) << tooLarge.message;
    const Error negative = parseError(withRun(R"("device_index": -1, )"));
    EXPECT_NE(negative.message.find("device_index"), std::string::npos) << negative.message;
}

TEST(TraceJson, AHugeNumberInTheDeviceNamesTheFieldAndSaysOutOfRange) {
    const std::pair<const char*, const char*> cases[] = {
        {R"("sm_count": 1e400)", "\"sm_count\" is 1e400, out of range"},
        {R"("clock_mhz": -1e400)", "\"clock_mhz\" is -1e400, out of range"},
        {R"("sm_count": 123456789012345678901234567890)",
         "\"sm_count\" is 1.2345678901234568e+29, out of range: at most 4294967295"},
        {R"("global_memory_bytes": 123456789012345678901234567890)",
         "\"global_memory_bytes\" is 1.2345678901234568e+29, out of range: at most "
         "18446744073709551615"},
    };
    for (const auto& [figure, expected] : cases) {
        SCOPED_TRACE(figure);
        const Error error = parseError(replaced(withRun(""), R"({"name": "d"})",
                                                std::string(R"({"name": "d", )") + figure + "}"));
        EXPECT_EQ(error.code, Error::Code::Parse);
        EXPECT_NE(error.message.find("invalid \"device\": "), std::string::npos) << error.message;
        EXPECT_NE(error.message.find(expected), std::string::npos) << error.message;
        EXPECT_EQ(error.message.find("not valid JSON"), std::string::npos) << error.message;
    }
    const Error sweep = parseError(withRun(R"("sweep": {"param": "work", "value": 1e999}, )"));
    EXPECT_NE(sweep.message.find("\"value\" is 1e999, out of range"), std::string::npos)
        << sweep.message;
}

// Runs of a trace mostly share a few devices: the reader reads each device object's text once
// (reading it through nlohmann::json was a fifth of loading 100,000 runs of two devices). Each
// run still gets its own device and ceilings, A again after B included.
TEST(TraceJson, RunsSharingADeviceTextEachGetTheirDevice) {
    const std::string a = R"("device": {"name": "A", "sm_count": 132})";
    const std::string b =
        R"("device": {"name": "B", "sm_count": 46, "ceilings": {"source": "datasheet", "dram_gbps": 100, "pinned_htod_gbps": 10, "pinned_dtoh_gbps": 10, "pageable_htod_gbps": 5, "pageable_dtoh_gbps": 5, "fp64_gflops": 1000, "fp32_gflops": 2000}})";
    std::string text = R"({"format": "slicescope-trace", "version": 1, "runs": [)";
    const std::string devices[] = {a, a, b, b, a};
    for (int i = 0; i < 5; ++i) {
        text += std::string(i ? ", " : "") + R"({"id": "r)" + std::to_string(i) +
                R"(", "strategy": "s", "mode": "modelled", )" + devices[i] +
                R"(, "activities": []})";
    }
    text += "]}";
    const auto trace = parseTrace(text);
    ASSERT_TRUE(trace) << trace.error().message;
    const std::pair<const char*, std::uint32_t> expected[] = {
        {"A", 132}, {"A", 132}, {"B", 46}, {"B", 46}, {"A", 132}};
    for (int i = 0; i < 5; ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(trace->runs[i].device.name, expected[i].first);
        EXPECT_EQ(trace->runs[i].device.smCount, expected[i].second);
        EXPECT_EQ(trace->runs[i].ceilings.has_value(), expected[i].second == 46);
    }
    EXPECT_EQ(trace->runs[3].ceilings, trace->runs[2].ceilings);
}

// A file is hostile input: a figure no GPU has made the GUI allocate an SM per "sm_count"
// (bad_alloc at 4294967295, a hang painting 100000000). Every figure is checked against the
// limits of tracelimits.h (docs/trace-format.md, "Limits"); the limits themselves read.
TEST(TraceJson, RejectsFiguresBeyondPhysicalLimits) {
    const auto device = [](const std::string& figure) {
        return replaced(withRun(""), R"({"name": "d"})", R"({"name": "d", )" + figure + "}");
    };
    const auto kernel = [](const std::string& fields) {
        return withActivity(R"("kind": "kernel", "start_ns": 1, "end_ns": 2, )" + fields);
    };
    const auto occupancy = [](const std::string& fields) {
        return withRun(
            R"("occupancy": {"theoretical": 0.5, "thread_slots_busy": 0.1, "limiter": "warps", )" +
            fields + "}");
    };
    const auto launch = [](const std::string& fields) {
        return withRun(R"("launch": {"workers": 1, )" + fields + "}");
    };
    const std::pair<std::string, const char*> cases[] = {
        {device(R"("sm_count": 4294967295)"), "\"sm_count\" is 4294967295, more than 1024"},
        {device(R"("sm_count": 100000000)"), "\"sm_count\" is 100000000"},
        {device(R"("warp_size": 65)"), "\"warp_size\""},
        {device(R"("max_threads_per_sm": 4097)"), "\"max_threads_per_sm\""},
        {device(R"("max_warps_per_sm": 129)"), "\"max_warps_per_sm\""},
        {device(R"("max_blocks_per_sm": 129)"), "\"max_blocks_per_sm\""},
        {device(R"("max_threads_per_block": 1025)"), "\"max_threads_per_block\""},
        {device(R"("registers_per_sm": 1048577)"), "\"registers_per_sm\""},
        {device(R"("registers_per_block": 4294967295)"), "\"registers_per_block\""},
        {device(R"("max_registers_per_thread": 257)"), "\"max_registers_per_thread\""},
        {device(R"("shared_memory_per_sm_bytes": 4194305)"), "\"shared_memory_per_sm_bytes\""},
        {device(R"("shared_memory_per_block_optin_bytes": 18446744073709551615)"),
         "\"shared_memory_per_block_optin_bytes\""},
        {device(R"("clock_mhz": 1e308)"), "\"clock_mhz\""},
        {device(R"("memory_bandwidth_gbps": 100000.5)"), "\"memory_bandwidth_gbps\""},
        {device(R"("pinned_dtoh_gbps": 1e9)"), "\"pinned_dtoh_gbps\""},
        {device(R"("global_memory_bytes": 17592186044417)"), "\"global_memory_bytes\""},
        {device(R"("name": "x")"), "duplicate field \"name\""},
        {device(R"("sm_count": 132, "sm_count": 4294967295)"), "duplicate field \"sm_count\""},
        {device(R"("future": 1, "future": 2)"), "duplicate field \"future\""},
        {kernel(R"("grid": [0, 1, 1])"), "\"grid\" is a grid extent of 0"},
        {kernel(R"("grid": [2147483648, 1, 1])"), "\"grid\" is a grid of (2147483648,1,1)"},
        {kernel(R"("grid": [1, 65536, 1])"), "\"grid\""},
        {kernel(R"("grid": [4294967295, 4294967295, 4294967295])"), "\"grid\""},
        {kernel(R"("block": [1025, 1, 1])"), "\"block\""},
        {kernel(R"("block": [1, 1, 65])"), "\"block\""},
        {kernel(R"("block": [32, 32, 2])"), "a block of 2048 threads"},
        {kernel(R"("registers_per_thread": 257)"),
         "\"registers_per_thread\" is too large (at most 256)"},
        {kernel(R"("static_shared_bytes": 4194305)"), "\"static_shared_bytes\" is too large"},
        {kernel(R"("dynamic_shared_bytes": 4294967295)"), "\"dynamic_shared_bytes\" is too large"},
        {kernel(R"("theoretical_occupancy": 1e308)"), "out of range"},
        {kernel(R"("theoretical_occupancy": 1.5)"),
         "\"theoretical_occupancy\" must be a fraction from 0 to 1, not 1.5"},
        {kernel(R"("achieved_occupancy": -5)"),
         "\"achieved_occupancy\" must be a fraction from 0 to 1, not -5"},
        {kernel(R"("active_lane_share": 32)"),
         "\"active_lane_share\" must be a fraction from 0 to 1, not 32"},
        {kernel(R"("estimated_occupancy_percent": 101)"),
         "\"estimated_occupancy_percent\" is too large (at most 100)"},
        {kernel(R"("estimated_occupancy_percent": 0.5)"), "\"estimated_occupancy_percent\""},
        {kernel(R"("limiter": "threads")"), "unknown limiter 'threads'"},
        {withRun(R"("source": {"file": "a.json"})"), "\"source\" is missing the field \"format\""},
        {withRun(
             R"("projection": {"source_run": "a", "source_device": "b", "source_preset": "c"})"),
         "\"projection\" is missing the field \"target_preset\""},
        {occupancy(R"("achieved": 1e308)"), "\"achieved\" must be a fraction"},
        {occupancy(R"("sm_busy_share": -5)"), "\"sm_busy_share\" must be a fraction"},
        {occupancy(R"("active_blocks_per_sm": 129)"), "\"active_blocks_per_sm\" is too large"},
        {replaced(occupancy(""), "\"theoretical\": 0.5", "\"theoretical\": 2"),
         "\"theoretical\" must be a fraction"},
        {replaced(occupancy(""), "\"thread_slots_busy\": 0.1", "\"thread_slots_busy\": -0.1"),
         "\"thread_slots_busy\" must be a fraction"},
        {launch(R"("grid": [0, 1, 1], "block": [64, 1, 1])"), "\"grid\" is a grid extent of 0"},
        {launch(R"("grid": [1, 1, 1], "block": [2048, 1, 1])"), "\"block\""},
        {launch(R"("grid": [1, 1, 1], "block": [64, 1, 1], "registers_per_thread": 4294967295)"),
         "\"registers_per_thread\" is too large"},
        {withRun(R"("occupancy_series": [[1, 1.5]])"),
         "\"occupancy_series value\" must be a fraction"},
        {withRun(R"("verification": {"passed": true, "max_abs_error": -1})"),
         "\"max_abs_error\" must be >= 0"},
        {withRun(R"("repeat": 0)"), "\"repeat\" must be at least 1"},
        {withRun(R"("repeat": 65537)"), "\"repeat\" is too large (at most 65536)"},
        {withRun(R"("warmup": 65537)"), "\"warmup\" is too large (at most 65536)"},
        {withRun(R"("warmup": -1)"), "\"warmup\" must be a whole number >= 0"},
        {withActivity(R"("kind": "host", "start_ns": 0, "end_ns": 1, "warmup": 1)"),
         "\"warmup\" must be true or false"},
        {withRun(R"("chunks": 0)"), "\"chunks\" must be at least 1"},
        {withRun(R"("chunks": 4097)"), "\"chunks\" is too large (at most 4096)"},
        {withRun(R"("chunks": -1)"), "\"chunks\" must be a whole number"},
        {withRun(R"("chunks": 1.5)"), "\"chunks\""},
        {withRun(R"("streams": 0)"), "\"streams\" must be at least 1"},
        {withRun(R"("streams": 65)"), "\"streams\" is too large (at most 64)"},
        {withRun(R"("streams": 18446744073709551616)"), "\"streams\""},
        {withRun(R"("wall_ns": -1)"), "\"wall_ns\" must be from 0"},
        {withRun(R"("wall_ns": 9007199254740993)"), "\"wall_ns\" must be from 0"},
        {withActivity(R"("kind": "host", "start_ns": 0, "end_ns": 9007199254740993)"),
         "more than the 9007199254740992"},
    };
    for (const auto& [text, expected] : cases) {
        SCOPED_TRACE(text);
        const Error error = parseError(text);
        EXPECT_EQ(error.code, Error::Code::Parse);
        EXPECT_EQ(error.message.rfind("byte ", 0), 0U) << error.message;
        EXPECT_NE(error.message.find(expected), std::string::npos) << error.message;
    }

    // Every limit itself reads.
    const std::string atTheLimits = replaced(
        withRun(
            R"("repeat": 65536, "warmup": 65536, "chunks": 4096, "streams": 64, "wall_ns": 9007199254740992, "occupancy": {"theoretical": 1, "thread_slots_busy": 0, "limiter": "warps", "achieved": 0, "sm_busy_share": 1, "active_blocks_per_sm": 128}, "launch": {"grid": [2147483647, 65535, 65535], "block": [1024, 1, 1], "workers": 1, "registers_per_thread": 256, "static_shared_bytes": 4194304, "dynamic_shared_bytes": 4194304}, "occupancy_series": [[0, 0], [1, 1]])",
            R"([{"kind": "kernel", "start_ns": 0, "end_ns": 9007199254740992, "grid": [1, 1, 65535], "block": [1, 1024, 1], "registers_per_thread": 256, "theoretical_occupancy": 1, "achieved_occupancy": 0}, {"kind": "kernel", "start_ns": 0, "end_ns": 1, "block": [16, 1, 64]}])"),
        R"({"name": "d"})",
        R"({"name": "d", "sm_count": 1024, "warp_size": 64, "max_threads_per_sm": 4096, "max_warps_per_sm": 128, "max_blocks_per_sm": 128, "max_threads_per_block": 1024, "registers_per_sm": 1048576, "registers_per_block": 1048576, "max_registers_per_thread": 256, "shared_memory_per_sm_bytes": 4194304, "shared_memory_per_block_bytes": 4194304, "shared_memory_per_block_optin_bytes": 4194304, "reserved_shared_memory_per_block_bytes": 4194304, "clock_mhz": 10000, "memory_bandwidth_gbps": 100000, "global_memory_bytes": 17592186044416, "pageable_htod_gbps": 100000, "pageable_dtoh_gbps": 100000, "pinned_htod_gbps": 100000, "pinned_dtoh_gbps": 100000})");
    auto limits = parseTrace(atTheLimits);
    ASSERT_TRUE(limits) << limits.error().message;
    EXPECT_EQ(limits->runs[0].device.smCount, kMaxSmCount);
    EXPECT_EQ(limits->runs[0].chunks, kMaxChunks);
    EXPECT_EQ(limits->runs[0].streams, kMaxStreams);
    EXPECT_EQ(limits->runs[0].launch->grid, (Dim3{kMaxGridX, kMaxGridYZ, kMaxGridYZ}));
    EXPECT_EQ(limits->runs[0].activities[0].durationNs(), kMaxDurationNs);
    // What the reader takes, the writer writes (and the reverse:
    // RefusesToWriteATraceItCouldNotReadBack).
    TempDir dir;
    EXPECT_TRUE(writeTrace(*limits, dir.path() / "limits.json"));
}

TEST(TraceJson, RejectsARunIdGivenTwice) {
    const std::string run =
        R"({"id": "same", "strategy": "s", "mode": "modelled", "device": {"name": "d"}, "activities": []})";
    const std::string text = R"({"format": "slicescope-trace", "version": 1, "runs": [)" + run +
                             ", " + replaced(run, "same", "other") + ", " + run + "]}";
    const Error error = parseError(text);
    EXPECT_EQ(error.code, Error::Code::Parse);
    EXPECT_NE(error.message.find("(run 2)"), std::string::npos) << error.message;
    EXPECT_NE(error.message.find("duplicate run id \"same\""), std::string::npos) << error.message;
    EXPECT_EQ(error.message.rfind("byte " + std::to_string(text.rfind(run)) + " ", 0), 0U)
        << error.message;
}

// A 200 MB kernel name took the GUI down in its text layout. Names longer than kMaxNameBytes are
// cut at a character boundary, end in an ellipsis, and the run says so in a note.
TEST(TraceJson, CutsLongNamesAndSaysSo) {
    const std::string exact(kMaxNameBytes, 'k');
    // "é" is two bytes: the cut must not split one.
    const std::string accented = "k" + [] {
        std::string text;
        for (std::size_t i = 0; i < kMaxNameBytes; ++i) {
            text += "\xC3\xA9";
        }
        return text;
    }();
    const std::string text = withRun(
        R"("notes": ["kept"])",
        R"([{"kind": "kernel", "start_ns": 1, "end_ns": 2, "name": ")" + exact +
            R"("}, {"kind": "kernel", "start_ns": 1, "end_ns": 2, "name": ")" +
            std::string(200'000, 'x') +
            R"("}, {"kind": "api", "start_ns": 1, "end_ns": 2, "name": ")" + accented + R"("}])");
    auto trace = parseTrace(text);
    ASSERT_TRUE(trace) << trace.error().message;
    const trace::Run& run = trace->runs[0];
    EXPECT_EQ(run.name(run.activities[0]), exact) << "a name at the limit is kept whole";
    const std::string_view cut = run.name(run.activities[1]);
    EXPECT_LE(cut.size(), kMaxNameBytes);
    EXPECT_GE(cut.size(), kMaxNameBytes - 3);
    EXPECT_EQ(cut.substr(0, 100), std::string(100, 'x'));
    EXPECT_EQ(cut.substr(cut.size() - 3), "\u2026");
    const std::string_view cutAccented = run.name(run.activities[2]);
    EXPECT_LE(cutAccented.size(), kMaxNameBytes);
    EXPECT_EQ(cutAccented.substr(cutAccented.size() - 5), "\xC3\xA9\u2026")
        << "cut between characters";
    ASSERT_EQ(run.notes.size(), 2U);
    EXPECT_EQ(run.notes[0], "kept");
    EXPECT_NE(run.notes[1].find("2 activity name(s) longer than 4096 bytes were cut"),
              std::string::npos)
        << run.notes[1];
    // Written and read again, nothing more is cut and no second note appears.
    const std::string written = toJson(*trace);
    auto again = parseTrace(written);
    ASSERT_TRUE(again) << again.error().message;
    EXPECT_EQ(toJson(*again), written);
}

TEST(TraceJson, RefusesTextLongerThanItsLimit) {
    const std::pair<std::string, const char*> cases[] = {
        {replaced(withRun(""), R"("id": "r")",
                  "\"id\": \"" + std::string(kMaxShortTextBytes + 1, 'i') + "\""),
         "\"id\" is 4097 bytes long"},
        {replaced(withRun(""), R"("name": "d")",
                  "\"name\": \"" + std::string(kMaxShortTextBytes + 1, 'd') + "\""),
         "\"name\""},
        {withRun("\"command\": \"" + std::string(kMaxLongTextBytes + 1, 'c') + "\""),
         "\"command\" is 1048577 bytes long"},
        {withRun("\"notes\": [\"" + std::string(kMaxLongTextBytes + 1, 'n') + "\"]"), "\"notes\""},
    };
    for (const auto& [text, expected] : cases) {
        const Error error = parseError(text);
        EXPECT_EQ(error.code, Error::Code::Parse);
        EXPECT_NE(error.message.find(expected), std::string::npos) << error.message;
    }
    EXPECT_TRUE(
        parseTrace(withRun("\"command\": \"" + std::string(kMaxLongTextBytes, 'c') + "\"")));
}

TEST(TraceJson, RejectsEveryTruncationOfAValidFile) {
    const std::string text = readFile(fs::path(SLICESCOPE_TEST_DATA_DIR) / "format-example.json");
    ASSERT_TRUE(parseTrace(text));
    const std::size_t end = text.find_last_of('}');
    for (std::size_t length = 0; length <= end; ++length) {
        auto trace = parseTrace(std::string_view(text).substr(0, length));
        ASSERT_FALSE(trace) << "accepted a file cut at byte " << length;
        ASSERT_EQ(trace.error().code, Error::Code::Parse) << length;
    }
}

TEST(TraceJson, RejectsCorruptedBytesWithoutCrashing) {
    // Not a fuzzer, but every single-byte damage of a valid file must end in a value or a
    // Parse error (run under the asan preset, this also checks for out-of-bounds reads).
    const std::string text = readFile(fs::path(SLICESCOPE_TEST_DATA_DIR) / "format-example.json");
    for (std::size_t i = 0; i < text.size(); i += 3) {
        for (const char replacement : {'\0', '"', '{', ']', '9', '\xFF'}) {
            std::string damaged = text;
            damaged[i] = replacement;
            auto trace = parseTrace(damaged);
            if (!trace) {
                ASSERT_EQ(trace.error().code, Error::Code::Parse) << i;
            }
        }
    }
}

TEST(TraceJson, ReportsProgressAndStopsWhenCancelled) {
    Trace trace;
    trace::Run& run = trace.runs.emplace_back();
    run.id = "many";
    run.strategy = "recorded";
    run.mode = RunMode::Recorded;
    for (int i = 0; i < 50'000; ++i) {
        run.activities.push_back(activity(ActivityKind::Api, i, i + 1));
    }
    const std::string text = toJson(trace);

    std::vector<double> fractions;
    ReadOptions options;
    options.progress = [&fractions](double fraction) { fractions.push_back(fraction); };
    ASSERT_TRUE(parseTrace(text, options));
    ASSERT_GE(fractions.size(), 3U);
    EXPECT_TRUE(std::is_sorted(fractions.begin(), fractions.end()));
    EXPECT_GT(fractions[fractions.size() / 2], 0.0);
    EXPECT_EQ(fractions.back(), 1.0);

    std::atomic<bool> cancel{false};
    int calls = 0;
    options.cancel = &cancel;
    options.progress = [&](double) {
        if (++calls == 2) {
            cancel = true;
        }
    };
    auto cancelled = parseTrace(text, options);
    ASSERT_FALSE(cancelled);
    EXPECT_EQ(cancelled.error().code, Error::Code::Cancelled);
}

// ---------------------------------------------------------------------------------------------
// Files

// The memory readTrace reads a file into: it grows keeping what was read, and moves.
TEST(TraceJson, FileBufferGrowsKeepingItsBytes) {
    FileBuffer buffer;
    EXPECT_EQ(buffer.capacity(), 0U);
    EXPECT_TRUE(buffer.view().empty());
    buffer.reserve(10);
    ASSERT_GE(buffer.capacity(), 10U);
    std::memcpy(buffer.data(), "0123456789", 10);
    buffer.setSize(10);
    EXPECT_EQ(buffer.view(), "0123456789");
    buffer.reserve(5); // never shrinks
    EXPECT_EQ(buffer.view(), "0123456789");
    // Beyond a huge page: the bytes read so far come along.
    const std::size_t large = (std::size_t(3) << 20) + 17;
    buffer.reserve(large);
    ASSERT_GE(buffer.capacity(), large);
    EXPECT_EQ(buffer.view(), "0123456789");
    std::memset(buffer.data() + 10, 'x', large - 10);
    buffer.setSize(large);
    EXPECT_EQ(buffer.view().size(), large);
    EXPECT_EQ(buffer.view().back(), 'x');
    buffer.setSize(buffer.capacity() + 1); // at most what it holds
    EXPECT_EQ(buffer.size(), buffer.capacity());
    buffer.setSize(large);

    FileBuffer moved(std::move(buffer));
    EXPECT_EQ(moved.view().substr(0, 10), "0123456789");
    EXPECT_EQ(buffer.capacity(), 0U); // NOLINT(bugprone-use-after-move): moved from is empty
    FileBuffer assigned;
    assigned.reserve(1);
    assigned = std::move(moved);
    EXPECT_EQ(assigned.view().size(), large);
}

// RunsToWrite: runs lent one at a time, here refilled into one scratch run under other ids, as
// the GUI's session writes its runs. The file is what writing them as a Trace gives; an id lent
// twice is still refused, though the scratch run holds only one at a time.
TEST(TraceJson, WritesRunsLentOneAtATime) {
    const fs::path dir =
        fs::temp_directory_path() / ("slicescope-lent-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const Trace source = fullTrace();
    Trace expected = source;
    expected.sweeps.clear();
    for (std::size_t i = 0; i < expected.runs.size(); ++i) {
        expected.runs[i].id = "renamed-" + std::to_string(i);
        expected.runs[i].hidden = i % 2 == 1;
    }
    trace::Run scratch;
    std::vector<std::string> ids;
    for (const auto& run : expected.runs) {
        ids.push_back(run.id);
    }
    const RunsToWrite lent{expected.generator, source.runs.size(),
                           [&](std::size_t i) -> const trace::Run& {
                               scratch = source.runs[i];
                               scratch.id = ids[i];
                               scratch.hidden = i % 2 == 1;
                               return scratch;
                           }};
    ASSERT_TRUE(writeTrace(lent, dir / "lent.json"));
    ASSERT_TRUE(writeTrace(expected, dir / "whole.json"));
    std::ifstream a(dir / "lent.json"), b(dir / "whole.json");
    const std::string lentText((std::istreambuf_iterator<char>(a)), {});
    const std::string wholeText((std::istreambuf_iterator<char>(b)), {});
    EXPECT_EQ(lentText, wholeText);
    const auto read = readTrace(dir / "lent.json");
    ASSERT_TRUE(read) << read.error().message;
    expectSameTrace(expected, *read);

    ids.back() = ids.front();
    const auto refused = writeTrace(lent, dir / "lent.json");
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("another run has the same id"), std::string::npos);
    const auto kept = readTrace(dir / "lent.json"); // the file written before is left whole
    ASSERT_TRUE(kept) << kept.error().message;
    EXPECT_EQ(kept->runs.size(), expected.runs.size());
    fs::remove_all(dir);
}

TEST(TraceJson, WritesAndReadsAFile) {
    TempDir dir;
    const fs::path path = dir.path() / "trace.json";
    const Trace trace = fullTrace();
    ASSERT_TRUE(writeTrace(trace, path));
    EXPECT_EQ(readFile(path), toJson(trace));
    auto read = readTrace(path);
    ASSERT_TRUE(read) << read.error().message;
    expectSameTrace(trace, *read);
    // Only the file itself is left: the temporary was renamed over it.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(TraceJson, ReplacesAnExistingFileWhole) {
    TempDir dir;
    const fs::path path = dir.path() / "trace.json";
    { std::ofstream(path) << std::string(1 << 20, 'x'); }
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    Trace small;
    small.generator = "small";
    ASSERT_TRUE(writeTrace(small, path));
    EXPECT_EQ(readFile(path), toJson(small));
    EXPECT_EQ(fs::status(path).permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
}

TEST(TraceJson, AFailedWriteLeavesTheTargetAndNoTemporaryBehind) {
    TempDir dir;
    // A folder where the file should go: the rename over it fails after everything was written.
    const fs::path blocked = dir.path() / "blocked.json";
    fs::create_directory(blocked);
    fs::path inside = blocked / "keep.txt";
    { std::ofstream(inside) << "keep"; }
    auto written = writeTrace(fullTrace(), blocked);
    ASSERT_FALSE(written);
    EXPECT_EQ(written.error().code, Error::Code::Io);
    EXPECT_NE(written.error().message.find("blocked.json"), std::string::npos)
        << written.error().message;
    EXPECT_EQ(readFile(inside), "keep");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);

    auto missingFolder = writeTrace(fullTrace(), dir.path() / "no-such-folder" / "t.json");
    ASSERT_FALSE(missingFolder);
    EXPECT_EQ(missingFolder.error().code, Error::Code::Io);
    EXPECT_NE(missingFolder.error().message.find("t.json"), std::string::npos);
    EXPECT_NE(missingFolder.error().message.find("No such file or directory"), std::string::npos);
}

// The files a writer leaves, other than path itself (temporaries).
std::vector<fs::path> othersIn(const fs::path& dir, const fs::path& path) {
    std::vector<fs::path> others;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path() != path) {
            others.push_back(entry.path());
        }
    }
    return others;
}

// A trace of about 20 MB: long enough to write that a kill lands in the middle.
Trace largeTrace() {
    Trace trace;
    trace.generator = "large";
    Run& run = trace.runs.emplace_back();
    run.id = "large";
    run.strategy = "recorded";
    run.mode = RunMode::Recorded;
    for (int i = 0; i < 200'000; ++i) {
        Activity a = activity(ActivityKind::Kernel, kBaseNs + i, kBaseNs + i + 1);
        a.nameId = run.intern("kernel");
        run.activities.push_back(a);
    }
    return trace;
}

// A trace the reader would reject must not replace a good file: such a file could never be
// opened again (no lost data). writeTrace checks what the in-memory model allows and the format
// does not.
TEST(TraceJson, RefusesToWriteATraceItCouldNotReadBackAndKeepsTheOldFile) {
    TempDir dir;
    const fs::path path = dir.path() / "trace.json";
    ASSERT_TRUE(writeTrace(fullTrace(), path));
    const std::string good = readFile(path);

    const std::pair<const char*, std::function<void(Trace&)>> cases[] = {
        {"start_ns", [](Trace& t) { t.runs[0].activities[0].startNs = -1; }},
        {"before",
         [](Trace& t) { t.runs[0].activities[1].endNs = t.runs[0].activities[1].startNs - 1; }},
        {"occupancy_series", [](Trace& t) { t.runs[0].occupancySeries[0].timeNs = -5; }},
        {"occupancy_series", [](Trace& t) { t.runs[0].occupancySeries[1].value = kNoValue; }},
        {"problem", [](Trace& t) { t.runs[1].problem->shape.c = 0; }},
        {"problem", [](Trace& t) { t.runs[1].problem->workPerElement = 0; }},
        {"clock_mhz", [](Trace& t) { t.runs[0].device.clockMHz = -1; }},
        {"memory_bandwidth_gbps",
         [](Trace& t) {
             t.runs[0].device.memoryBandwidthGBps = std::numeric_limits<double>::infinity();
         }},
        {"compute_capability", [](Trace& t) { t.runs[0].device.computeMajor = 1000; }},
        {"compute_capability", [](Trace& t) { t.runs[2].device.computeMinor = -1; }},
        {"sm_count", [](Trace& t) { t.runs[0].device.smCount = 100'000'000; }},
        {"same id", [](Trace& t) { t.runs[2].id = t.runs[0].id; }},
        {"theoretical", [](Trace& t) { t.runs[0].occupancy->theoretical = 1e308; }},
        {"achieved_occupancy", [](Trace& t) { t.runs[0].activities[5].achievedOccupancy = -5; }},
        {"active_lane_share", [](Trace& t) { t.runs[0].activities[5].activeLaneShare = 2; }},
        {"estimated_occupancy_percent",
         [](Trace& t) { t.runs[4].activities[0].estimatedOccupancyPercent = 101; }},
        {"format",
         [](Trace& t) { t.runs[4].source->format = std::string(kMaxShortTextBytes + 1, 'f'); }},
        {"source_run",
         [](Trace& t) {
             t.runs[5].projection->sourceRun = std::string(kMaxShortTextBytes + 1, 'r');
         }},
        {"grid", [](Trace& t) { t.runs[0].activities[5].grid.x = 0; }},
        {"block",
         [](Trace& t) {
             t.runs[0].launch->block = {1024, 2, 1};
         }},
        {"registers_per_thread",
         [](Trace& t) { t.runs[0].activities[5].registersPerThread = 300; }},
        {"duration", [](Trace& t) { t.runs[0].activities[0].endNs += kMaxDurationNs; }},
        {"repeat", [](Trace& t) { t.runs[0].repeat = 0; }},
        {"warmup", [](Trace& t) { t.runs[0].warmup = kMaxWarmup + 1; }},
        {"chunks", [](Trace& t) { t.runs[0].chunks = 0; }},
        {"streams", [](Trace& t) { t.runs[0].streams = kMaxStreams + 1; }},
        {"wall_ns", [](Trace& t) { t.runs[0].wallNs = -1; }},
        {"occupancy_series value", [](Trace& t) { t.runs[0].occupancySeries[0].value = 2; }},
        {"id", [](Trace& t) { t.runs[0].id = std::string(kMaxShortTextBytes + 1, 'x'); }},
        {"notes", [](Trace& t) { t.runs[0].notes.assign(kMaxNotes + 1, ""); }},
        {"notes", [](Trace& t) { t.runs[0].notes[0] = std::string(kMaxLongTextBytes + 1, 'n'); }},
    };
    for (const auto& [expected, breakIt] : cases) {
        Trace bad = fullTrace();
        breakIt(bad);
        const std::string text = toJson(bad);
        SCOPED_TRACE(expected);
        ASSERT_FALSE(parseTrace(text))
            << "the reader accepts this case: it is no test of the writer";
        auto written = writeTrace(bad, path);
        ASSERT_FALSE(written);
        EXPECT_EQ(written.error().code, Error::Code::InvalidArgument);
        EXPECT_NE(written.error().message.find(path.string()), std::string::npos)
            << written.error().message;
        EXPECT_NE(written.error().message.find(expected), std::string::npos)
            << written.error().message;
        EXPECT_EQ(readFile(path), good);
        EXPECT_TRUE(othersIn(dir.path(), path).empty());
    }
}

// The reader refuses a file over kMaxTraceFileBytes, so the writer refuses to write one (a
// 4096-chunk model run of every strategy made 1.26 GB that replaced a good trace): it stops,
// and the old file stays. The limit is a parameter here, so the test need not write 1 GiB.
TEST(TraceJson, RefusesToWriteATraceLargerThanTheFileLimitAndKeepsTheOldFile) {
    TempDir dir;
    const fs::path path = dir.path() / "trace.json";
    ASSERT_TRUE(writeTrace(fullTrace(), path));
    const std::string good = readFile(path);

    const Trace large = largeTrace();
    const std::uint64_t size = toJson(large).size();
    ASSERT_GT(size, std::uint64_t(4) << 20) << "larger than the writer's pieces, to stop mid-way";
    auto refused = writeTraceLimited(large, path, size - 1);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, Error::Code::OutOfRange);
    EXPECT_NE(refused.error().message.find(path.string()), std::string::npos);
    EXPECT_NE(refused.error().message.find("more than " + std::to_string(size - 1) + " bytes"),
              std::string::npos)
        << refused.error().message;
    EXPECT_EQ(readFile(path), good);
    EXPECT_TRUE(othersIn(dir.path(), path).empty());

    // At the limit exactly, it is written, and reads back; the public writer takes the bound
    // too, and the reader refuses one byte more than its own bound (the same parameter).
    ASSERT_TRUE(writeTrace(large, path, size));
    EXPECT_EQ(fs::file_size(path), size);
    ReadOptions atTheBound;
    atTheBound.maxFileBytes = size;
    EXPECT_TRUE(readTrace(path, atTheBound));
    ReadOptions belowIt;
    belowIt.maxFileBytes = size - 1;
    const auto tooLarge = readTrace(path, belowIt);
    ASSERT_FALSE(tooLarge);
    EXPECT_NE(tooLarge.error().message.find("more than the " + std::to_string(size - 1) +
                                            " bytes a trace may have"),
              std::string::npos)
        << tooLarge.error().message;
    EXPECT_FALSE(writeTrace(large, path, size - 1));
    EXPECT_EQ(fs::file_size(path), size);
}

TEST(TraceJson, ReadsAtMostTheLimitOfNotesPerRun) {
    std::string notes;
    for (std::size_t i = 0; i < kMaxNotes; ++i) {
        notes += i == 0 ? "\"\"" : ", \"\"";
    }
    auto atTheLimit = parseTrace(withRun("\"notes\": [" + notes + "]"));
    ASSERT_TRUE(atTheLimit) << atTheLimit.error().message;
    EXPECT_EQ(atTheLimit->runs[0].notes.size(), kMaxNotes);
    const Error error = parseError(withRun("\"notes\": [" + notes + ", \"\"]"));
    EXPECT_EQ(error.code, Error::Code::Parse);
    EXPECT_NE(error.message.find("\"notes\" has more than the 1024 notes a run may have"),
              std::string::npos)
        << error.message;
}

// A writer killed at any moment (SIGKILL: no handler, no clean-up) leaves the old file whole.
TEST(TraceJson, AWriterKilledMidWayLeavesTheOldFileWhole) {
    TempDir dir;
    const fs::path path = dir.path() / "trace.json";
    const Trace old = fullTrace();
    ASSERT_TRUE(writeTrace(old, path));
    const Trace large = largeTrace();

    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        (void)writeTrace(large, path);
        ::_exit(0);
    }
    // Kill it once its temporary file holds some of the text, but not all of it.
    bool killedMidWay = false;
    for (int poll = 0; poll < 20'000 && !killedMidWay; ++poll) {
        for (const auto& other : othersIn(dir.path(), path)) {
            std::error_code error;
            if (fs::file_size(other, error) > 0 && !error) {
                ::kill(child, SIGKILL);
                killedMidWay = true;
                break;
            }
        }
        if (!killedMidWay) {
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(killedMidWay) << "the writer finished before the test saw its temporary file";
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    auto read = readTrace(path);
    ASSERT_TRUE(read) << read.error().message;
    expectSameTrace(old, *read);

    // The killed writer's temporary is left behind; the next write of that file removes it,
    // since the process that owned it is gone.
    ASSERT_TRUE(writeTrace(old, path));
    EXPECT_TRUE(othersIn(dir.path(), path).empty());
}

// A full disk (here: a file size limit, so write() fails with EFBIG) fails the write with an Io
// error, keeps the old file and removes the temporary.
TEST(TraceJson, AFullDiskLeavesTheOldFileAndNoTemporaryBehind) {
    TempDir dir;
    const fs::path path = dir.path() / "trace.json";
    ASSERT_TRUE(writeTrace(fullTrace(), path));
    const std::string good = readFile(path);
    const Trace large = largeTrace();

    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{256 * 1024, 256 * 1024};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        auto written = writeTrace(large, path);
        const bool reported =
            !written && written.error().code == Error::Code::Io &&
            written.error().message.find(path.string()) != std::string::npos &&
            written.error().message.find(std::strerror(EFBIG)) != std::string::npos;
        ::_exit(reported ? 42 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 42)
        << "writeTrace did not report the failed write as an Io error";
    EXPECT_EQ(readFile(path), good);
    EXPECT_TRUE(othersIn(dir.path(), path).empty());
}

TEST(TraceJson, ReadingAMissingFileOrAFolderIsAnIoError) {
    TempDir dir;
    auto missing = readTrace(dir.path() / "missing.json");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, Error::Code::Io);
    EXPECT_NE(missing.error().message.find("missing.json"), std::string::npos);
    auto folder = readTrace(dir.path());
    ASSERT_FALSE(folder);
    EXPECT_EQ(folder.error().code, Error::Code::Io);
}

// A FIFO with no writer blocked the reader forever, /dev/zero and a FIFO fed by `yes` grew its
// buffer until bad_alloc, and a 2 GB sparse file was read whole before it was rejected. Only
// regular files are read, and their size is checked first.
TEST(TraceJson, ReadsOnlyRegularFilesUpToTheLimitWithoutBlocking) {
    TempDir dir;
    const fs::path fifo = dir.path() / "fifo.json";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
    const auto started = std::chrono::steady_clock::now();
    auto fromFifo = readTrace(fifo); // no writer: opening it must not wait for one
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
    ASSERT_FALSE(fromFifo);
    EXPECT_EQ(fromFifo.error().code, Error::Code::Io);
    EXPECT_NE(fromFifo.error().message.find("not a regular file: a FIFO"), std::string::npos)
        << fromFifo.error().message;

    auto zero = readTrace("/dev/zero");
    ASSERT_FALSE(zero);
    EXPECT_EQ(zero.error().code, Error::Code::Io);
    EXPECT_EQ(zero.error().message,
              "cannot read /dev/zero: not a regular file: a character device");

    auto folder = readTrace(dir.path());
    ASSERT_FALSE(folder);
    EXPECT_NE(folder.error().message.find("not a regular file: a folder"), std::string::npos);

    // Sparse: no disk used, and refused from its size alone (reading it would take seconds).
    const fs::path huge = dir.path() / "huge.json";
    { std::ofstream(huge) << "{"; }
    fs::resize_file(huge, kMaxTraceFileBytes + 1);
    const auto before = std::chrono::steady_clock::now();
    auto tooLarge = readTrace(huge);
    EXPECT_LT(std::chrono::steady_clock::now() - before, std::chrono::milliseconds(500));
    ASSERT_FALSE(tooLarge);
    EXPECT_EQ(tooLarge.error().code, Error::Code::Io);
    EXPECT_NE(tooLarge.error().message.find("1073741825 bytes, more than the 1024 MiB"),
              std::string::npos)
        << tooLarge.error().message;

    // A symbolic link to a regular file reads as the file.
    const fs::path real = dir.path() / "real.json";
    ASSERT_TRUE(writeTrace(fullTrace(), real));
    fs::create_symlink(real, dir.path() / "link.json");
    EXPECT_TRUE(readTrace(dir.path() / "link.json"));
}

TEST(TraceJson, ParseErrorsFromAFileNameTheFile) {
    TempDir dir;
    const fs::path path = dir.path() / "cut.json";
    { std::ofstream(path) << toJson(fullTrace()).substr(0, 500); }
    auto trace = readTrace(path);
    ASSERT_FALSE(trace);
    EXPECT_EQ(trace.error().code, Error::Code::Parse);
    EXPECT_EQ(trace.error().message.rfind(path.string() + ": byte ", 0), 0U)
        << trace.error().message;
    EXPECT_NE(trace.error().message.find("truncated"), std::string::npos) << trace.error().message;
}

} // namespace
} // namespace slicescope::trace
