// Recording (docs/recording.md) without a GPU: spools written by hand turned into recorded runs
// (names, occupancy, counters joined by launch order, how each process ended), and programs that
// use no CUDA run through the recorder (exit status, signals, environment, working directory,
// cancel, a program that cannot start).
#include "record/spooldirectory.h"
#include "slicescope/device/devicespec.h"
#include "slicescope/occupancy/occupancycalculator.h"
#include "slicescope/record/childprocess.h"
#include "slicescope/record/recorder.h"
#include "slicescope/trace/tracejson.h"
#include "spool/spoolformat.h"

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace slicescope::record {
namespace {

// A recorded run must read back through the trace reader unchanged in what matters.
void expectReadsBack(const trace::Run& run) {
    trace::Trace t;
    t.runs.push_back(run);
    auto parsed = trace::parseTrace(trace::toJson(t));
    ASSERT_TRUE(parsed) << parsed.error().message;
    ASSERT_EQ(parsed->runs.size(), 1u);
    const auto& back = parsed->runs.front();
    EXPECT_EQ(back.mode, trace::RunMode::Recorded);
    EXPECT_EQ(back.activities.size(), run.activities.size());
    EXPECT_EQ(back.notes, run.notes);
    EXPECT_EQ(back.exitStatus, run.exitStatus);
    EXPECT_EQ(back.device.name, run.device.name);
}

using trace::ActivityKind;

std::filesystem::path freshDir(const std::string& name) {
    auto dir = std::filesystem::temp_directory_path() /
               ("slicescope-tst-recorder-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir;
}

void writeFile(const std::filesystem::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out << bytes;
}

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

bool hasNote(const trace::Run& run, const std::string& part) {
    for (const auto& n : run.notes) {
        if (n.find(part) != std::string::npos) {
            return true;
        }
    }
    return false;
}

std::string notes(const trace::Run& run) {
    std::string all;
    for (const auto& n : run.notes) {
        all += n + "\n";
    }
    return all;
}

DeviceFrame h200() {
    // CUPTI's device record for the H200, with the figures of resources/devices.json.
    DeviceFrame d;
    d.deviceId = 0;
    d.name = "NVIDIA H200";
    d.computeMajor = 9;
    d.computeMinor = 0;
    d.smCount = 132;
    d.threadsPerWarp = 32;
    d.maxWarpsPerSm = 64;
    d.maxBlocksPerSm = 32;
    d.maxSharedMemoryPerSmBytes = 233472;
    d.maxRegistersPerSm = 65536;
    d.maxRegistersPerBlock = 65536;
    d.maxSharedMemoryPerBlockBytes = 49152;
    d.maxThreadsPerBlock = 1024;
    d.coreClockKHz = 1980000;
    d.globalMemoryBandwidthKBps = 4'800'000'000;
    d.globalMemoryBytes = 150109880320;
    return d;
}

ActivityFrame activity(ActivityKind kind, std::uint32_t nameId, std::int64_t start,
                       std::int64_t end) {
    ActivityFrame f;
    f.kind = std::uint8_t(kind);
    f.nameId = nameId;
    f.startNs = start;
    f.endNs = end;
    return f;
}

ActivityFrame kernel(std::uint32_t nameId, std::int64_t start, std::uint32_t correlation,
                     std::uint32_t block, std::uint16_t registers, std::uint32_t staticShared = 0,
                     bool timed = true) {
    ActivityFrame f = activity(ActivityKind::Kernel, nameId, start, start + 1000);
    f.grid[0] = 40;
    f.block[0] = block;
    f.registersPerThread = registers;
    f.staticSharedBytes = staticShared;
    f.correlationId = correlation;
    f.gridId = correlation;
    f.contextId = 1;
    f.timed = timed;
    if (!timed) {
        f.startNs = f.endNs = 0;
    }
    return f;
}

constexpr std::int64_t kT0 = 1'764'675'720'000'000'000;

// A traced process: an API call, a pageable HtoD copy of 1,000,000 bytes, two kernels.
std::string tracedProcess(bool withEnd) {
    SpoolEncoder e;
    e.begin({kSpoolVersion, 4000, 3999, SpoolMode::Trace, kT0, 100});
    e.name({1, "cudaLaunchKernel"});
    e.name({2, "void fill<double>(double*, double, int)"});
    e.name({3, "[CUDA memcpy HtoD]"});
    e.name({4, "tile_sum(double const*, double*, int)"});
    e.device(h200());
    e.activity(kernel(4, kT0 + 9000, 12, 256, 40, 2048)); // CUPTI completes out of order
    ActivityFrame api = activity(ActivityKind::Api, 1, kT0 + 100, kT0 + 900);
    api.correlationId = 11;
    api.threadId = 4000;
    e.activity(api);
    ActivityFrame copy = activity(ActivityKind::HtoD, 3, kT0 + 1000, kT0 + 3000);
    copy.bytes = 1'000'000;
    copy.srcKind = std::uint8_t(trace::MemoryKind::Pageable);
    copy.dstKind = std::uint8_t(trace::MemoryKind::Device);
    e.activity(copy);
    e.activity(kernel(2, kT0 + 5000, 11, 1024, 56));
    e.stats({0, 0, 0, 4});
    if (withEnd) {
        e.end({EndReason::Exit, 0, kT0 + 20000});
    }
    return e.bytes();
}

const trace::Activity* findKernel(const trace::Run& run, std::string_view name) {
    for (const auto& a : run.activities) {
        if (a.kind == ActivityKind::Kernel && run.name(a) == name) {
            return &a;
        }
    }
    return nullptr;
}

double expectedOccupancy(std::uint32_t block, std::uint32_t registers, std::uint64_t shared) {
    auto preset = device::findPreset("h200");
    EXPECT_TRUE(preset.has_value());
    auto r = occupancy::calculate(*preset, {block, registers, shared, false});
    EXPECT_TRUE(r.has_value());
    return r ? r->occupancy : -1;
}

TEST(RunFromSpools, BuildsARecordedRunWithNamesGeometryAndTheoreticalOccupancy) {
    const auto dir = freshDir("basic");
    std::filesystem::create_directories(dir / "trace");
    writeFile(dir / "trace" / "4000.spool", tracedProcess(true));
    auto run = runFromSpools({dir / "trace", {}, "python3 seed.py", 0, 5'000'000});
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(run->mode, trace::RunMode::Recorded);
    EXPECT_EQ(run->strategy, "recorded");
    EXPECT_EQ(run->command, "python3 seed.py");
    EXPECT_EQ(run->exitStatus, 0);
    EXPECT_FALSE(run->problem.has_value());
    EXPECT_EQ(run->device.name, "NVIDIA H200");
    EXPECT_EQ(run->device.smCount, 132u);
    EXPECT_EQ(run->device.maxThreadsPerSm, 2048u);
    EXPECT_EQ(run->device.sharedMemoryPerBlockOptinBytes, 232448u) << notes(*run);
    EXPECT_EQ(run->device.reservedSharedMemoryPerBlockBytes, 1024u);
    ASSERT_EQ(run->activities.size(), 4u);
    for (std::size_t i = 1; i < run->activities.size(); ++i) {
        EXPECT_LE(run->activities[i - 1].startNs, run->activities[i].startNs) << "sorted by start";
    }
    EXPECT_EQ(run->activities[0].kind, ActivityKind::Api);
    EXPECT_EQ(run->name(run->activities[0]), "cudaLaunchKernel");
    EXPECT_EQ(run->activities[1].kind, ActivityKind::HtoD);
    EXPECT_EQ(run->activities[1].bytes, 1'000'000u);
    EXPECT_EQ(run->activities[1].srcKind, trace::MemoryKind::Pageable);

    const auto* fill = findKernel(*run, "void fill<double>(double*, double, int)");
    const auto* tile = findKernel(*run, "tile_sum(double const*, double*, int)");
    ASSERT_TRUE(fill && tile);
    EXPECT_EQ(fill->grid, (Dim3{40, 1, 1}));
    EXPECT_EQ(fill->block, (Dim3{1024, 1, 1}));
    EXPECT_EQ(fill->registersPerThread, 56);
    // 56 registers with 1024-thread blocks: 1 block per SM, 50 % (docs/design.md, seen on the
    // H200).
    EXPECT_FLOAT_EQ(fill->theoreticalOccupancy, 0.5f);
    EXPECT_FLOAT_EQ(tile->theoreticalOccupancy, float(expectedOccupancy(256, 40, 2048)));
    EXPECT_TRUE(std::isnan(fill->achievedOccupancy));
    // Without counters the thread use is unknown, not assumed.
    EXPECT_TRUE(std::isnan(fill->activeLaneShare));
    EXPECT_TRUE(hasNote(*run, "opt-in and reserved shared memory per block from")) << notes(*run);
    EXPECT_FALSE(hasNote(*run, "without a final flush")) << notes(*run);
    expectReadsBack(*run);
}

TEST(RunFromSpools, SaysWhatWasLostWhenAProcessDiedWithoutFlushing) {
    const auto dir = freshDir("died");
    std::filesystem::create_directories(dir / "trace");
    std::string bytes = tracedProcess(false);
    SpoolEncoder torn;
    torn.activity(kernel(2, kT0 + 50000, 20, 1024, 56));
    bytes += torn.bytes().substr(0, 30); // part of a frame, as a process killed mid-write leaves
    writeFile(dir / "trace" / "4000.spool", bytes);
    auto run = runFromSpools({dir / "trace", {}, "prog", 137, 0});
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(run->activities.size(), 4u) << "everything before the torn frame is kept";
    EXPECT_TRUE(hasNote(*run, "process 4000 ended without a final flush")) << notes(*run);
    EXPECT_TRUE(hasNote(*run, "incomplete frame")) << notes(*run);
}

TEST(RunFromSpools, ReportsSignalsDroppedRecordsUntimedRecordsAndErrors) {
    const auto dir = freshDir("signal");
    std::filesystem::create_directories(dir / "trace");
    SpoolEncoder e;
    e.begin({kSpoolVersion, 5000, 1, SpoolMode::Trace, kT0, 100});
    e.name({1, "k"});
    e.activity(kernel(1, kT0, 1, 128, 16, 0, false));              // untimed
    e.activity(activity(ActivityKind::Api, 1, kT0 + 10, kT0 + 5)); // ends before it starts
    e.message({MessageSeverity::Error, "cuptiActivityFlushAll failed"});
    e.stats({12, 3, 0, 2});
    e.end({EndReason::Signal, 15, kT0 + 100});
    writeFile(dir / "trace" / "5000.spool", e.bytes());
    auto run = runFromSpools({dir / "trace", {}, "prog", 143, 0});
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_TRUE(run->activities.empty());
    EXPECT_EQ(run->droppedRecords, 12u);
    EXPECT_TRUE(hasNote(*run, "CUPTI dropped 12 activity records")) << notes(*run);
    EXPECT_TRUE(hasNote(*run, "exhausted 3 times")) << notes(*run);
    EXPECT_TRUE(hasNote(*run, "1 records had no timestamps")) << notes(*run);
    EXPECT_TRUE(hasNote(*run, "1 malformed records")) << notes(*run);
    EXPECT_TRUE(hasNote(*run, "CUPTI error: cuptiActivityFlushAll failed")) << notes(*run);
    EXPECT_TRUE(hasNote(*run, "process 5000 was ended by SIGTERM")) << notes(*run);
}

TEST(RunFromSpools, GraphLaunchesAreCountedInANote) {
    const auto dir = freshDir("graphs");
    std::filesystem::create_directories(dir / "trace");
    SpoolEncoder e;
    e.begin({kSpoolVersion, 5100, 1, SpoolMode::Trace, kT0, 100});
    e.name({1, "cudaGraphLaunch"});
    e.name({2, "cuGraphLaunch"});
    e.name({3, "cudaLaunchKernel"});
    e.name({4, "k"});
    for (std::uint32_t i = 0; i < 3; ++i) {
        ActivityFrame launch =
            activity(ActivityKind::Api, i == 2 ? 2 : 1, kT0 + 1000 * i, kT0 + 1000 * i + 10);
        launch.correlationId = 100 + i;
        e.activity(launch);
        e.activity(kernel(4, kT0 + 1000 * i + 100, 100 + i, 128, 16));
    }
    e.activity(activity(ActivityKind::Api, 3, kT0 + 5000, kT0 + 5010));
    e.end({EndReason::Exit, 0, kT0 + 9000});
    writeFile(dir / "trace" / "5100.spool", e.bytes());
    auto run = runFromSpools({dir / "trace", {}, "prog", 0, 0});
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_TRUE(hasNote(*run, "3 CUDA graph launches (cudaGraphLaunch)")) << notes(*run);

    // A program without graphs gets no such note.
    const auto plain = freshDir("no-graphs");
    std::filesystem::create_directories(plain / "trace");
    writeFile(plain / "trace" / "4000.spool", tracedProcess(true));
    auto other = runFromSpools({plain / "trace", {}, "prog", 0, 0});
    ASSERT_TRUE(other);
    EXPECT_FALSE(hasNote(*other, "graph launch")) << notes(*other);
}

TEST(RunFromSpools, ProcessesShareOneRun) {
    const auto dir = freshDir("two");
    std::filesystem::create_directories(dir / "trace");
    writeFile(dir / "trace" / "4000.spool", tracedProcess(true));
    std::string other = tracedProcess(true);
    writeFile(dir / "trace" / "4001.spool", other);
    auto run = runFromSpools({dir / "trace", {}, "prog", 0, 0});
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_EQ(run->activities.size(), 8u);
    EXPECT_TRUE(hasNote(*run, "2 processes")) << notes(*run);
}

TEST(RunFromSpools, NoSpoolMeansNoCuda) {
    const auto dir = freshDir("none");
    std::filesystem::create_directories(dir / "trace");
    auto run = runFromSpools({dir / "trace", {}, "/bin/true", 0, 0});
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_TRUE(run->activities.empty());
    EXPECT_FALSE(run->device.name.empty());
    EXPECT_TRUE(hasNote(*run, "never initialised CUDA")) << notes(*run);
    expectReadsBack(*run);
}

// The counting pass: three launches, untimed, and their ranges in launch order.
std::string countingProcess(const std::vector<std::uint32_t>& nameIds,
                            const std::vector<double>& achieved) {
    SpoolEncoder e;
    e.begin({kSpoolVersion, 6000, 1, SpoolMode::Counters, kT0, 100});
    e.name({1, "void fill<double>(double*, double, int)"});
    e.name({2, "tile_sum(double const*, double*, int)"});
    e.name({3, "other_kernel()"});
    // Kernel records come back in completion order, not launch order.
    for (std::size_t i = nameIds.size(); i-- > 0;) {
        const std::uint16_t regs = nameIds[i] == 1 ? 56 : 40;
        e.activity(kernel(nameIds[i], 0, std::uint32_t(100 + i), nameIds[i] == 1 ? 1024 : 256, regs,
                          nameIds[i] == 1 ? 0 : 2048, false));
    }
    for (std::size_t i = 0; i < achieved.size(); ++i) {
        // fill: one thread of each warp works (1 thread per warp instruction); the others: all 32.
        const double inst = 1000;
        const double threadInst = nameIds[i] == 1 ? inst : 32 * inst;
        e.range({1, 0, i, achieved[i], 1, 2, 3, threadInst, inst});
    }
    e.end({EndReason::Exit, 0, kT0});
    return e.bytes();
}

TEST(RunFromSpools, CountersJoinByLaunchOrder) {
    const auto dir = freshDir("counters");
    std::filesystem::create_directories(dir / "trace");
    std::filesystem::create_directories(dir / "counters");
    writeFile(dir / "trace" / "4000.spool",
              tracedProcess(true)); // fill (corr 11), tile_sum (corr 12)
    writeFile(dir / "counters" / "6000.spool", countingProcess({1, 2}, {0.25, 0.625}));
    auto run = runFromSpools({dir / "trace", dir / "counters", "prog", 0, 0});
    ASSERT_TRUE(run) << run.error().message;
    const auto* fill = findKernel(*run, "void fill<double>(double*, double, int)");
    const auto* tile = findKernel(*run, "tile_sum(double const*, double*, int)");
    ASSERT_TRUE(fill && tile);
    EXPECT_FLOAT_EQ(fill->achievedOccupancy, 0.25f);
    EXPECT_FLOAT_EQ(tile->achievedOccupancy, 0.625f);
    // The measured thread use: threads per warp instruction over the warp size.
    EXPECT_FLOAT_EQ(fill->activeLaneShare, 1.0f / 32);
    EXPECT_FLOAT_EQ(tile->activeLaneShare, 1.0f);
    EXPECT_TRUE(hasNote(*run, "2 of 2 kernels measured")) << notes(*run);
    expectReadsBack(*run);
}

TEST(RunFromSpools, CountersStopAtTheFirstLaunchThatDiffers) {
    const auto dir = freshDir("mismatch");
    std::filesystem::create_directories(dir / "trace");
    std::filesystem::create_directories(dir / "counters");
    writeFile(dir / "trace" / "4000.spool", tracedProcess(true));
    writeFile(dir / "counters" / "6000.spool", countingProcess({1, 3}, {0.25, 0.5}));
    auto run = runFromSpools({dir / "trace", dir / "counters", "prog", 0, 0});
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_FLOAT_EQ(findKernel(*run, "void fill<double>(double*, double, int)")->achievedOccupancy,
                    0.25f);
    EXPECT_TRUE(
        std::isnan(findKernel(*run, "tile_sum(double const*, double*, int)")->achievedOccupancy));
    EXPECT_TRUE(hasNote(*run,
                        "launch 2 was tile_sum(double const*, double*, int) in the traced run but "
                        "other_kernel() in the counting run"))
        << notes(*run);
}

TEST(RunFromSpools, CountersWithoutPrivilegeSayWhy) {
    const auto dir = freshDir("privilege");
    std::filesystem::create_directories(dir / "trace");
    std::filesystem::create_directories(dir / "counters");
    writeFile(dir / "trace" / "4000.spool", tracedProcess(true));
    SpoolEncoder e;
    e.begin({kSpoolVersion, 6000, 1, SpoolMode::Counters, kT0, 100});
    e.message({MessageSeverity::CountersUnavailable,
               "achieved occupancy: cuptiProfilerGetCounterAvailability failed: "
               "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES"});
    writeFile(dir / "counters" / "6000.spool", e.bytes());
    auto run = runFromSpools({dir / "trace", dir / "counters", "prog", 0, 0});
    ASSERT_TRUE(run) << run.error().message;
    EXPECT_TRUE(hasNote(*run, "INSUFFICIENT_PRIVILEGES")) << notes(*run);
    EXPECT_TRUE(hasNote(*run, "achieved occupancy unavailable")) << notes(*run);
    EXPECT_TRUE(
        std::isnan(findKernel(*run, "void fill<double>(double*, double, int)")->achievedOccupancy));
}

TEST(ShellQuote, QuotesOnlyWhatNeedsIt) {
    EXPECT_EQ(shellQuote({"python3", "seed.py", "--n=5"}), "python3 seed.py --n=5");
    EXPECT_EQ(shellQuote({"sh", "-c", "echo 'hi' $X"}), "sh -c 'echo '\\''hi'\\'' $X'");
    EXPECT_EQ(shellQuote({"a", ""}), "a ''");
}

// Programs without CUDA through the recorder. The library path only matters to a program that
// initialises CUDA, so these run in every build.
RecordRequest requestFor(std::vector<std::string> command) {
    RecordRequest r;
    r.command = std::move(command);
    r.injectionLibrary = "/nonexistent/libslicescope-inject.so";
    return r;
}

TEST(RecordProgram, PassesTheExitStatusThrough) {
    auto r = recordProgram(requestFor({"sh", "-c", "exit 3"}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_TRUE(r->started);
    EXPECT_EQ(r->exitStatus, 3);
    EXPECT_FALSE(r->signal);
    EXPECT_EQ(r->run.exitStatus, 3);
    EXPECT_EQ(r->run.command, "sh -c 'exit 3'");
    EXPECT_TRUE(r->run.activities.empty());
    EXPECT_TRUE(hasNote(r->run, "never initialised CUDA"));
}

TEST(RecordProgram, ReportsADeathBySignalLikeAShell) {
    auto r = recordProgram(requestFor({"sh", "-c", "kill -SEGV $$"}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->exitStatus, 128 + SIGSEGV);
    EXPECT_EQ(r->signal, SIGSEGV);
    EXPECT_TRUE(hasNote(r->run, "killed by SIGSEGV")) << notes(r->run);
}

TEST(RecordProgram, AnExitStatusAbove128IsNotASignal) {
    // A shell's 200 is `exit 200` here, not signal 72: the wait status tells them apart.
    auto r = recordProgram(requestFor({"sh", "-c", "exit 200"}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->exitStatus, 200);
    EXPECT_FALSE(r->signal);
    EXPECT_FALSE(hasNote(r->run, "killed")) << notes(r->run);
}

TEST(ChildProcess, DescribesWaitStatusesFromTheStatusItself) {
    const auto waitFor = [](const char* script) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::execl("/bin/sh", "sh", "-c", script, static_cast<char*>(nullptr));
            ::_exit(127);
        }
        int status = 0;
        ::waitpid(pid, &status, 0);
        return status;
    };
    const int exited = waitFor("exit 200");
    EXPECT_EQ(shellExitStatus(exited), 200);
    EXPECT_FALSE(terminatingSignal(exited));
    EXPECT_EQ(describeWaitStatus(exited), "exit status 200");
    const int killed = waitFor("kill -TERM $$");
    EXPECT_EQ(shellExitStatus(killed), 128 + SIGTERM);
    EXPECT_EQ(terminatingSignal(killed), SIGTERM);
    EXPECT_EQ(describeWaitStatus(killed), "killed by SIGTERM");
}

// A process id that no process has: a child that has ended and been reaped.
pid_t deadPid() {
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
}

TEST(SpoolFolders, OnlyFoldersOfDeadOwnersAreRemoved) {
    const auto base = freshDir("stale");
    const auto stale = base / ("slicescope-record-" + std::to_string(deadPid()) + "-aB3xYz");
    const auto live = base / ("slicescope-record-" + std::to_string(::getppid()) + "-Qw12er");
    const auto unnamed = base / "slicescope-record-Zx9kLm"; // no owner recorded: kept
    const auto other = base / "something-else";
    for (const auto& dir : {stale, live, unnamed, other}) {
        std::filesystem::create_directories(dir / "trace");
        writeFile(dir / "trace" / "1.spool", "frames");
    }
    EXPECT_EQ(removeStaleSpoolFolders(base), 1u);
    EXPECT_FALSE(std::filesystem::exists(stale));
    for (const auto& dir : {live, unnamed, other}) {
        EXPECT_TRUE(std::filesystem::exists(dir / "trace" / "1.spool")) << dir;
    }
    std::filesystem::remove_all(base);
}

TEST(SpoolFolders, ANewFolderRecordsItsOwnerAndIsPrivate) {
    const auto base = freshDir("owner");
    auto made = makeSpoolFolder(base);
    ASSERT_TRUE(made) << made.error().message;
    const std::string prefix = "slicescope-record-" + std::to_string(::getpid()) + "-";
    EXPECT_EQ(made->filename().string().rfind(prefix, 0), 0u) << *made;
    struct stat st {};
    ASSERT_EQ(::stat(made->c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    // Its owner (this process) is alive: a later clean-up keeps it.
    EXPECT_EQ(removeStaleSpoolFolders(base), 0u);
    EXPECT_TRUE(std::filesystem::is_directory(*made));
    std::filesystem::remove_all(base);
}

TEST(RecordProgram, RemovesSpoolsLeftByAKilledRecorderAndItsOwn) {
    const auto base = freshDir("tmpdir");
    const auto stale = base / ("slicescope-record-" + std::to_string(deadPid()) + "-k1ll3d");
    std::filesystem::create_directories(stale / "trace");
    const char* saved = std::getenv("TMPDIR");
    const std::string savedValue = saved != nullptr ? saved : "";
    ::setenv("TMPDIR", base.c_str(), 1);
    auto r = recordProgram(requestFor({"true"}));
    if (saved != nullptr) {
        ::setenv("TMPDIR", savedValue.c_str(), 1);
    } else {
        ::unsetenv("TMPDIR");
    }
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(base),
                            std::filesystem::directory_iterator()),
              0);
    std::filesystem::remove_all(base);
}

TEST(RecordProgram, AMissingProgramIsNotStarted) {
    auto r = recordProgram(requestFor({"slicescope-no-such-program"}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_FALSE(r->started);
    EXPECT_EQ(r->exitStatus, 127);
    EXPECT_NE(r->startError.find("command not found"), std::string::npos) << r->startError;
    auto path = recordProgram(requestFor({"/nonexistent/prog"}));
    ASSERT_TRUE(path);
    EXPECT_EQ(path->exitStatus, 127);
    EXPECT_NE(path->startError.find("no such file"), std::string::npos) << path->startError;
}

TEST(RecordProgram, AFileThatCannotBeExecutedIsNotStarted) {
    const auto dir = freshDir("noexec");
    writeFile(dir / "script", "#!/bin/sh\nexit 0\n");
    ::chmod((dir / "script").c_str(), 0644);
    auto r = recordProgram(requestFor({(dir / "script").string()}));
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_FALSE(r->started);
    EXPECT_EQ(r->exitStatus, 126);
}

TEST(RecordProgram, UsesTheWorkingDirectoryAndEnvironmentGiven) {
    const auto dir = freshDir("env");
    auto request =
        requestFor({"sh", "-c",
                    "pwd > seen.txt; echo \"$SLICESCOPE_TEST_VALUE\" >> seen.txt; "
                    "echo \"$SLICESCOPE_RECORD_MODE $CUDA_INJECTION64_PATH\" >> seen.txt"});
    request.workingDirectory = dir;
    request.environment = {"SLICESCOPE_TEST_VALUE=forty two"};
    auto r = recordProgram(request);
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->exitStatus, 0);
    EXPECT_EQ(readFile(dir / "seen.txt"),
              std::filesystem::canonical(dir).string() +
                  "\nforty two\ntrace /nonexistent/libslicescope-inject.so\n");
    auto missing = requestFor({"true"});
    missing.workingDirectory = dir / "not-there";
    auto m = recordProgram(missing);
    ASSERT_TRUE(m);
    EXPECT_FALSE(m->started);
    EXPECT_NE(m->startError.find("working directory"), std::string::npos) << m->startError;
}

TEST(RecordProgram, CancelStopsTheProgramAndKeepsTheRun) {
    std::atomic<bool> cancel{false};
    std::atomic<int> reports{0};
    RecordCallbacks callbacks;
    callbacks.cancel = &cancel;
    callbacks.progress = [&](const RecordProgress& p) {
        EXPECT_EQ(p.stage == "trace" || p.stage == "convert", true) << p.stage;
        ++reports;
    };
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        cancel = true;
    });
    const auto start = std::chrono::steady_clock::now();
    auto r = recordProgram(requestFor({"sleep", "30"}), callbacks);
    canceller.join();
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    EXPECT_TRUE(r->cancelled);
    EXPECT_EQ(r->exitStatus, 128 + SIGTERM);
    EXPECT_TRUE(hasNote(r->run, "recording cancelled")) << notes(r->run);
    EXPECT_GT(reports.load(), 0);
}

TEST(RecordProgram, RefusesAnEmptyCommand) {
    auto r = recordProgram(requestFor({}));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().code, Error::Code::InvalidArgument);
}

} // namespace
} // namespace slicescope::record
