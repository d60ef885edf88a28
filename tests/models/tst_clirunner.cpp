// Runs through the real slicescope-cli child process: a CPU run, a modelled run, Cancel (also of
// a child that ignores SIGTERM), and every way a child can fail.
#include "models/clirunner.h"
#include "models/recordplan.h"
#include "models/traceloader.h"
#include "testhelpers.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTest>
#include <cerrno>
#include <csignal>

using namespace slicescope;
using namespace slicescope::models;

namespace {

// `record` needs the CUPTI injection library, built with the CUDA backend; a build without it
// says so, and the recording tests skip.
bool recordingUnavailable(const QSignalSpy& failed) {
    return !failed.isEmpty() &&
           failed.at(0).at(1).toString().contains(QStringLiteral("injection library"));
}

constexpr int kGenerousMs = 180'000; // a loaded 2-core machine

bool processGone(qint64 pid) {
    return ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
}

CliJob job(const QStringList& arguments, const QString& output) {
    CliJob j;
    j.label = QStringLiteral("test job");
    j.arguments = arguments;
    j.outputPath = output;
    return j;
}

} // namespace

class TestCliRunner : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void cpuRunWritesATraceAndReportsProgress();
    void modelledRunIsMarkedModelled();
    void cancelEndsTheChildWithinASecond();
    void cancelKillsAChildThatIgnoresSigterm();
    void usageErrorIsAFailedJob();
    void failedStrategyKeepsTheOthersAndTheNextJobRuns();
    void missingProgramIsAFailedJob();
    void crashingChildIsAFailedJob();
    void busyRunnerRefusesASecondStart();
    void recordingKeepsTheTraceWhateverTheExitStatus();
    void recordingAProgramThatCannotStartFails();
    void cancelledRecordingKeepsWhatWasRecorded();

  private:
    QTemporaryDir dir_;
};

void TestCliRunner::initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("SLICESCOPE_CLI", testhelpers::cliPath().toUtf8());
    QCOMPARE(CliRunner::defaultProgram(), testhelpers::cliPath());
}

void TestCliRunner::cpuRunWritesATraceAndReportsProgress() {
    RunConfig config;
    config.r = 20;
    config.c = 400;
    config.n = 5;
    config.repeat = 3;
    config.strategies = {QStringLiteral("cpu-serial"), QStringLiteral("cpu-parallel")};
    const RunPlan plan = planRun(config, dir_.path(), 1);
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    CliRunner runner;
    QSignalSpy progress(&runner, &CliRunner::progress);
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    QVERIFY(runner.start(plan.jobs));
    QVERIFY(runner.isRunning());
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(1).toString()));
    QCOMPARE(succeeded.count(), 2); // each CPU strategy in a child of its own
    const QString path = succeeded.at(0).at(1).toString();
    QVERIFY(QFileInfo::exists(path));
    QVERIFY(QFileInfo::exists(succeeded.at(1).at(1).toString()));
    bool sawCompute = false;
    for (const auto& args : progress) {
        const double fraction = args.at(0).toDouble();
        QVERIFY(fraction >= 0.0 && fraction <= 1.0);
        sawCompute = sawCompute || args.at(1).toString().contains(QStringLiteral("compute"));
    }
    QVERIFY(sawCompute); // the CLI's progress lines were read and parsed
    const LoadResult loaded = TraceLoader::loadNow(path, RunOrigin::Measured);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    QCOMPARE(loaded.runs.size(), std::size_t(1));
    QCOMPARE(loaded.runs[0]->id, QStringLiteral("cpu-serial"));
    QVERIFY(loaded.runs[0]->run->mode == trace::RunMode::MeasuredCpu);
    QVERIFY(loaded.runs[0]->run->verification && loaded.runs[0]->run->verification->passed);
    QVERIFY(!runner.isRunning());
}

void TestCliRunner::modelledRunIsMarkedModelled() {
    QByteArray devices;
    QCOMPARE(testhelpers::runCli({QStringLiteral("devices"), QStringLiteral("--json")}, &devices),
             0);
    const auto presets =
        QJsonDocument::fromJson(devices).object().value(QStringLiteral("presets")).toArray();
    if (presets.isEmpty()) {
        QSKIP("this build's slicescope-cli lists no device presets to model on");
    }
    RunConfig config;
    config.strategies = {QStringLiteral("one-worker"), QStringLiteral("elementwise-broadcast")};
    config.device.kind = DeviceChoice::Kind::Preset;
    config.device.presetId = presets.at(0).toObject().value(QStringLiteral("id")).toString();
    config.device.name = presets.at(0).toObject().value(QStringLiteral("name")).toString();
    const RunPlan plan = planRun(config, dir_.path(), 2);
    QCOMPARE(plan.jobs.size(), 1);
    CliRunner runner;
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    QVERIFY(runner.start(plan.jobs));
    QVERIFY(finished.wait(kGenerousMs));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(1).toString()));
    QCOMPARE(succeeded.count(), 1);
    const LoadResult loaded =
        TraceLoader::loadNow(succeeded.at(0).at(1).toString(), RunOrigin::Measured);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    QCOMPARE(loaded.runs.size(), std::size_t(2));
    for (const auto& entry : loaded.runs) {
        QVERIFY(entry->run->mode == trace::RunMode::Modelled);
        QVERIFY(entry->isModelled());
        QVERIFY(entry->summary.kernelCount > 0);
    }
}

void TestCliRunner::cancelEndsTheChildWithinASecond() {
    // Long enough never to finish on its own during the test: ~2000 repetitions of 100x4000x5.
    const QList<CliJob> jobs{
        job({QStringLiteral("run"), QStringLiteral("--shape"), QStringLiteral("100x4000x5"),
             QStringLiteral("--strategy"), QStringLiteral("cpu-serial"), QStringLiteral("--repeat"),
             QStringLiteral("10000"), QStringLiteral("--progress"), QStringLiteral("-o"),
             dir_.filePath(QStringLiteral("never.json"))},
            dir_.filePath(QStringLiteral("never.json")))};
    CliRunner runner;
    QSignalSpy progress(&runner, &CliRunner::progress);
    QSignalSpy finished(&runner, &CliRunner::finished);
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QVERIFY(runner.start(jobs));
    // Wait until the child is computing (a progress line from it, not just the job start).
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 2, kGenerousMs);
    const qint64 pid = runner.childPid();
    QVERIFY(pid > 0);
    QElapsedTimer timer;
    timer.start();
    runner.cancel();
    QVERIFY(finished.wait(5000));
    const qint64 elapsedMs = timer.elapsed();
    QVERIFY2(elapsedMs < 1000, qPrintable(QStringLiteral("cancel took %1 ms").arg(elapsedMs)));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY(processGone(pid));
    QCOMPARE(succeeded.count(), 0);
    QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("never.json"))));
}

void TestCliRunner::cancelKillsAChildThatIgnoresSigterm() {
    CliRunner runner;
    runner.setProgram(QStringLiteral("/bin/sh"));
    QSignalSpy started(&runner, &CliRunner::logLine);
    QSignalSpy finished(&runner, &CliRunner::finished);
    // The child says it is ready once SIGTERM is ignored, then hangs.
    QVERIFY(runner.start(
        {job({QStringLiteral("-c"), QStringLiteral("trap '' TERM; echo ready; exec sleep 600")},
             dir_.filePath(QStringLiteral("hang.json")))}));
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(started.begin(), started.end(),
                                         [](const QList<QVariant>& args) {
                                             return args.at(0).toString() ==
                                                    QStringLiteral("ready");
                                         }),
                             kGenerousMs);
    const qint64 pid = runner.childPid();
    QElapsedTimer timer;
    timer.start();
    runner.cancel();
    QVERIFY(finished.wait(5000));
    QVERIFY2(timer.elapsed() < 1000,
             qPrintable(QStringLiteral("cancel took %1 ms").arg(timer.elapsed())));
    QVERIFY(processGone(pid));
}

void TestCliRunner::usageErrorIsAFailedJob() {
    CliRunner runner;
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    const QString out = dir_.filePath(QStringLiteral("usage.json"));
    QVERIFY(runner.start({job({QStringLiteral("run"), QStringLiteral("--shape"),
                               QStringLiteral("100x0x5"), QStringLiteral("--strategy"),
                               QStringLiteral("cpu-serial"), QStringLiteral("-o"), out},
                              out)}));
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(succeeded.count(), 0);
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("dimension C is 0")),
             qPrintable(failed.at(0).at(1).toString()));
}

void TestCliRunner::failedStrategyKeepsTheOthersAndTheNextJobRuns() {
    // A GPU strategy fails where there is no GPU (the same path as a kernel fault on one: the CLI
    // exits 1 and its trace holds the strategies that succeeded). The failure is shown, the
    // successful run is kept, and the next job runs.
    CliRunner runner;
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    const QString mixed = dir_.filePath(QStringLiteral("mixed.json"));
    const QString next = dir_.filePath(QStringLiteral("next.json"));
    const QStringList shape{QStringLiteral("run"), QStringLiteral("--shape"),
                            QStringLiteral("10x100x5")};
    QVERIFY(runner.start(
        {job(shape + QStringList{QStringLiteral("--strategy"),
                                 QStringLiteral("slice-outer,cpu-serial"), QStringLiteral("-o"),
                                 mixed},
             mixed),
         job(shape + QStringList{QStringLiteral("--strategy"), QStringLiteral("cpu-parallel"),
                                 QStringLiteral("-o"), next},
             next)}));
    QVERIFY(finished.wait(kGenerousMs));
    if (failed.isEmpty()) {
        QSKIP("slice-outer ran: this machine has a GPU, so nothing failed");
    }
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("slice-outer")),
             qPrintable(failed.at(0).at(1).toString()));
    QCOMPARE(succeeded.count(), 2);
    const LoadResult kept =
        TraceLoader::loadNow(succeeded.at(0).at(1).toString(), RunOrigin::Measured);
    QVERIFY2(kept.ok(), qPrintable(kept.error));
    QCOMPARE(kept.runs.size(), std::size_t(1));
    QCOMPARE(kept.runs[0]->id, QStringLiteral("cpu-serial"));
    QCOMPARE(succeeded.at(1).at(1).toString(), next);
}

void TestCliRunner::missingProgramIsAFailedJob() {
    CliRunner runner;
    runner.setProgram(dir_.filePath(QStringLiteral("no-such-slicescope-cli")));
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    QVERIFY(
        runner.start({job({QStringLiteral("devices")}, dir_.filePath(QStringLiteral("x.json")))}));
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.at(0).at(1).toString().startsWith(QStringLiteral("Could not start")));
    QVERIFY(!runner.isRunning());
}

void TestCliRunner::crashingChildIsAFailedJob() {
    CliRunner runner;
    runner.setProgram(QStringLiteral("/bin/sh"));
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy finished(&runner, &CliRunner::finished);
    // Two jobs: the first crashes (SIGSEGV), the second still runs.
    QVERIFY(runner.start(
        {job({QStringLiteral("-c"), QStringLiteral("echo about to fault >&2; kill -SEGV $$")},
             dir_.filePath(QStringLiteral("crash.json"))),
         job({QStringLiteral("-c"), QStringLiteral("exit 0")},
             dir_.filePath(QStringLiteral("none.json")))}));
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("crashed")));
    QVERIFY(failed.at(0).at(1).toString().contains(QStringLiteral("about to fault")));
    QCOMPARE(succeeded.count(), 0); // the second job exited 0 but wrote no trace
    QCOMPARE(finished.at(0).at(0).toBool(), false);
}

void TestCliRunner::busyRunnerRefusesASecondStart() {
    CliRunner runner;
    runner.setProgram(QStringLiteral("/bin/sh"));
    QSignalSpy finished(&runner, &CliRunner::finished);
    const QList<CliJob> jobs{job({QStringLiteral("-c"), QStringLiteral("exec sleep 600")},
                                 dir_.filePath(QStringLiteral("s.json")))};
    QVERIFY(runner.start(jobs));
    QVERIFY(!runner.start(jobs));
    QVERIFY(!runner.start({}));
    runner.cancel();
    QVERIFY(finished.wait(5000));
    QVERIFY(runner.start(jobs)); // idle again
    runner.cancel();
    QVERIFY(finished.wait(5000));
}

void TestCliRunner::recordingKeepsTheTraceWhateverTheExitStatus() {
    RecordConfig config;
    config.program = QStringLiteral("sh");
    config.arguments = {QStringLiteral("-c"), QStringLiteral("echo from the program; exit 3")};
    const RecordPlan plan = planRecord(config, dir_.path(), 1);
    QVERIFY2(plan.error.isEmpty(), qPrintable(plan.error));
    CliRunner runner;
    QSignalSpy progress(&runner, &CliRunner::progress);
    QSignalSpy logs(&runner, &CliRunner::logLine);
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    QVERIFY(runner.start({plan.job}));
    QVERIFY(finished.wait(kGenerousMs));
    if (recordingUnavailable(failed)) {
        QSKIP("this build has no CUPTI injection library");
    }
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.at(0).at(1).toString()));
    QCOMPARE(succeeded.count(), 1);
    // The recording's progress has no known end: -1, with counts in the text.
    QVERIFY(std::any_of(progress.begin(), progress.end(), [](const QList<QVariant>& args) {
        return args.at(0).toDouble() < 0 &&
               args.at(1).toString().startsWith(QStringLiteral("recording: 0 kernels"));
    }));
    auto logged = [&](const QString& text) {
        return std::any_of(logs.begin(), logs.end(), [&](const QList<QVariant>& args) {
            return args.at(0).toString().contains(text);
        });
    };
    QVERIFY(logged(QStringLiteral("from the program"))); // the program's output reaches the log
    QVERIFY(logged(QStringLiteral("ended with status 3")));
    const LoadResult loaded =
        TraceLoader::loadNow(succeeded.at(0).at(1).toString(), RunOrigin::Measured);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    QCOMPARE(loaded.runs.size(), std::size_t(1));
    QVERIFY(loaded.runs[0]->run->mode == trace::RunMode::Recorded);
    QCOMPARE(loaded.runs[0]->run->exitStatus, std::optional<int>(3));
}

void TestCliRunner::recordingAProgramThatCannotStartFails() {
    RecordConfig config;
    config.program = QStringLiteral("slicescope-no-such-program");
    const RecordPlan plan = planRecord(config, dir_.path(), 2);
    CliRunner runner;
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    QVERIFY(runner.start({plan.job}));
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(succeeded.count(), 0);
    QCOMPARE(failed.count(), 1);
    if (recordingUnavailable(failed)) {
        QSKIP("this build has no CUPTI injection library (no CUDA backend)");
    }
    QVERIFY2(failed.at(0).at(1).toString().contains(QStringLiteral("command not found")),
             qPrintable(failed.at(0).at(1).toString()));
}

void TestCliRunner::cancelledRecordingKeepsWhatWasRecorded() {
    RecordConfig config;
    config.program = QStringLiteral("sleep");
    config.arguments = {QStringLiteral("600")};
    const RecordPlan plan = planRecord(config, dir_.path(), 3);
    CliRunner runner;
    QSignalSpy progress(&runner, &CliRunner::progress);
    QSignalSpy succeeded(&runner, &CliRunner::jobSucceeded);
    QSignalSpy failed(&runner, &CliRunner::jobFailed);
    QSignalSpy finished(&runner, &CliRunner::finished);
    QVERIFY(runner.start({plan.job}));
    // Recording has begun once the first progress line from `record` arrived.
    QTRY_VERIFY_WITH_TIMEOUT(
        std::any_of(progress.begin(), progress.end(),
                    [](const QList<QVariant>& args) { return args.at(0).toDouble() < 0; }) ||
            !finished.isEmpty(),
        kGenerousMs);
    if (recordingUnavailable(failed)) {
        QSKIP("this build has no CUPTI injection library");
    }
    QElapsedTimer timer;
    timer.start();
    runner.cancel();
    QVERIFY(finished.wait(20'000));
    QVERIFY2(timer.elapsed() < 10'000,
             qPrintable(QStringLiteral("cancel took %1 ms").arg(timer.elapsed())));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QCOMPARE(succeeded.count(), 1);
    const LoadResult loaded =
        TraceLoader::loadNow(succeeded.at(0).at(1).toString(), RunOrigin::Measured);
    QVERIFY2(loaded.ok(), qPrintable(loaded.error));
    const auto& notes = loaded.runs[0]->run->notes;
    QVERIFY(std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
        return n.find("recording cancelled") != std::string::npos;
    }));
    QCOMPARE(loaded.runs[0]->run->exitStatus, std::optional<int>(128 + SIGTERM));
}

QTEST_GUILESS_MAIN(TestCliRunner)
#include "tst_clirunner.moc"
