#pragma once

// Fixtures shared by the models and GUI tests: runs built in code with known shapes (for counting
// what gets drawn), real traces made by running slicescope-cli, and the shipped samples.
#include "models/devicelistmodel.h"
#include "models/runentry.h"
#include "models/timelinelanes.h"
#include "slicescope/trace/trace.h"
#include "slicescope/trace/tracejson.h"

#include <QDir>
#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

// QCOMPARE prints values it can name.
namespace QTest {
template <> inline char* toString(const slicescope::models::RunOrigin& origin) {
    return qstrdup(QByteArray::number(int(origin)).constData());
}
template <> inline char* toString(const slicescope::models::LaneKind& kind) {
    return qstrdup(slicescope::models::laneKindName(kind).c_str());
}
template <> inline char* toString(const slicescope::models::DeviceChoice::Kind& kind) {
    return qstrdup(QByteArray::number(int(kind)).constData());
}
} // namespace QTest

namespace testhelpers {

using namespace slicescope;

inline QString cliPath() {
    return QStringLiteral(SLICESCOPE_CLI_PATH);
}
#ifdef SLICESCOPE_GUI_PATH // the GUI tests only: the models tests do not build the program
inline QString guiPath() {
    return QStringLiteral(SLICESCOPE_GUI_PATH);
}
#endif

inline trace::Activity activity(trace::ActivityKind kind, std::int64_t startNs,
                                std::int64_t endNs) {
    trace::Activity a;
    a.kind = kind;
    a.startNs = startNs;
    a.endNs = endNs;
    return a;
}

// A GPU-shaped run: per repetition an API call, HtoD, a kernel and DtoH, back to back. Built in
// code for tests only; never shown to a user.
inline trace::Run gpuShapedRun(const std::string& id, trace::RunMode mode, int repetitions = 1,
                               std::int64_t originNs = 1'700'000'000'000'000'000) {
    trace::Run run;
    run.id = id;
    run.strategy = "slice-outer";
    run.mode = mode;
    run.problem = *problem::makeProblem({100, 4000, 5}, problem::Dtype::F64, 1);
    run.device.id = "h200";
    run.device.name = "NVIDIA H200";
    run.device.computeMajor = 9;
    run.device.smCount = 132;
    run.device.warpSize = 32;
    run.device.maxThreadsPerSm = 2048;
    run.device.maxWarpsPerSm = 64;
    run.device.maxBlocksPerSm = 32;
    run.device.maxThreadsPerBlock = 1024;
    run.device.registersPerSm = 65536;
    run.device.registersPerBlock = 65536;
    run.device.maxRegistersPerThread = 255;
    run.device.sharedMemoryPerSmBytes = 233472;
    run.device.sharedMemoryPerBlockBytes = 49152;
    run.device.sharedMemoryPerBlockOptinBytes = 232448;
    run.device.reservedSharedMemoryPerBlockBytes = 1024;
    run.repeat = std::uint32_t(repetitions);
    trace::LaunchInfo launch;
    launch.grid = {2, 1, 1};
    launch.block = {64, 1, 1};
    launch.workers = 100;
    launch.registersPerThread = 32;
    run.launch = launch;
    trace::OccupancyInfo occupancy;
    occupancy.theoretical = 1.0;
    occupancy.threadSlotsBusy = 100.0 / (132 * 2048);
    occupancy.limiter = "warps";
    occupancy.activeBlocksPerSm = 32;
    run.occupancy = occupancy;
    const std::uint32_t kernelName = run.intern("sliceOuterKernel");
    std::int64_t t = originNs;
    for (int i = 0; i < repetitions; ++i) {
        auto api = activity(trace::ActivityKind::Api, t, t + 5'000);
        api.nameId = run.intern("cudaMemcpy");
        run.activities.push_back(api);
        auto htod = activity(trace::ActivityKind::HtoD, t + 10'000, t + 6'010'000);
        htod.bytes = 16'000'000;
        htod.srcKind = trace::MemoryKind::Pageable;
        htod.dstKind = trace::MemoryKind::Device;
        run.activities.push_back(htod);
        auto kernel = activity(trace::ActivityKind::Kernel, t + 6'020'000, t + 53'020'000);
        kernel.nameId = kernelName;
        kernel.grid = launch.grid;
        kernel.block = launch.block;
        kernel.registersPerThread = 32;
        kernel.correlationId = std::uint32_t(i + 1);
        run.activities.push_back(kernel);
        auto dtoh = activity(trace::ActivityKind::DtoH, t + 53'030'000, t + 59'030'000);
        dtoh.bytes = 16'000'000;
        dtoh.srcKind = trace::MemoryKind::Device;
        dtoh.dstKind = trace::MemoryKind::Pageable;
        run.activities.push_back(dtoh);
        t += 60'000'000;
    }
    run.wallNs = t - originNs;
    return run;
}

// `count` back-to-back kernels of `durationNs` each (a lane that must merge when zoomed out),
// plus one long host span over all of them.
inline trace::Run denseRun(const std::string& id, std::size_t count,
                           std::int64_t durationNs = 1'000) {
    trace::Run run;
    run.id = id;
    run.strategy = "recorded";
    run.mode = trace::RunMode::Recorded;
    run.activities.reserve(count + 1);
    for (std::size_t i = 0; i < count; ++i) {
        run.activities.push_back(activity(trace::ActivityKind::Kernel,
                                          std::int64_t(i) * durationNs * 2,
                                          std::int64_t(i) * durationNs * 2 + durationNs));
    }
    run.activities.push_back(
        activity(trace::ActivityKind::Host, 0, std::int64_t(count) * durationNs * 2));
    return run;
}

// Runs slicescope-cli to completion; returns its exit code (-1 if it did not finish).
inline int runCli(const QStringList& arguments, QByteArray* out = nullptr,
                  QByteArray* err = nullptr) {
    QProcess process;
    process.start(cliPath(), arguments);
    if (!process.waitForFinished(180'000)) {
        process.kill();
        process.waitForFinished();
        return -1;
    }
    if (out) {
        *out = process.readAllStandardOutput();
    }
    if (err) {
        *err = process.readAllStandardError();
    }
    return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

// A real CPU trace: cpu-serial and cpu-parallel measured now on this machine.
inline QString measuredCpuTrace(const QTemporaryDir& dir,
                                const QString& shape = QStringLiteral("20x400x5"), int repeat = 2) {
    const QString path = dir.filePath(QStringLiteral("cpu-%1-%2.json").arg(shape).arg(repeat));
    const int status = runCli(
        {QStringLiteral("run"), QStringLiteral("--shape"), shape, QStringLiteral("--strategy"),
         QStringLiteral("cpu-serial,cpu-parallel"), QStringLiteral("--repeat"),
         QString::number(repeat), QStringLiteral("-q"), QStringLiteral("-o"), path});
    return status == 0 ? path : QString();
}

inline QString writeTrace(const QTemporaryDir& dir, const QString& name, const trace::Trace& t) {
    const QString path = dir.filePath(name);
    return trace::writeTrace(t, path.toStdString()) ? path : QString();
}

inline QStringList sampleFiles() {
    QStringList files;
    const QDir dir(QStringLiteral(SLICESCOPE_SAMPLES_DIR));
    for (const QString& name : dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
        files << dir.filePath(name);
    }
    return files;
}

// Counts how late a 10 ms timer on the GUI thread fires: the longest gap between two ticks.
class Heartbeat {
  public:
    Heartbeat() {
        timer_.setInterval(10);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            maxGapMs_ = std::max(maxGapMs_, double(since_.nsecsElapsed()) / 1e6);
            since_.restart();
            ++ticks_;
        });
    }
    void start() {
        maxGapMs_ = 0;
        ticks_ = 0;
        since_.start();
        timer_.start();
    }
    void stop() {
        maxGapMs_ = std::max(maxGapMs_, double(since_.nsecsElapsed()) / 1e6);
        timer_.stop();
    }
    double maxGapMs() const { return maxGapMs_; }
    int ticks() const { return ticks_; }

  private:
    QTimer timer_;
    QElapsedTimer since_;
    double maxGapMs_ = 0;
    int ticks_ = 0;
};

} // namespace testhelpers
