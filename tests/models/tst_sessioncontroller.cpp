// The session controller with no widgets: runs through a stand-in slicescope-cli (a shell script
// that copies a prepared trace, fails, or hangs) join the session in the order asked for and are
// autosaved, their traces deleted once the autosave holds them; failures and refusals arrive as
// signals; the restore of what an earlier start left (the saved session and the traces of runs
// it never saved) holds the autosave until answered, adopts the orphaned traces and restores a
// run found in both once; loads overtaken by a new session or a cancel never join it.
#include "models/devicelistmodel.h"
#include "models/pendingruns.h"
#include "models/session.h"
#include "models/sessioncontroller.h"
#include "models/traceloader.h"
#include "testhelpers.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <sys/stat.h>
#include <sys/sysmacros.h>

using namespace slicescope;
using namespace slicescope::models;

namespace {

constexpr int kGenerousMs = 120'000;

const QByteArray kDevicesWithAPreset =
    R"(echo '{"cuda_backend": false, "devices": [], "no_devices_reason": "no driver", )"
    R"("presets": [{"id": "h200", "name": "NVIDIA H200", "sm_count": 132}]}')";

// Each strategy's run copies <fixtures>/<strategy>.json to its -o, after a progress line.
QByteArray copiesFixtures(const QString& fixtures) {
    return "echo \"progress {\\\"index\\\": 0, \\\"count\\\": 1, \\\"fraction\\\": 0.5, "
           "\\\"strategy\\\": \\\"$strategy\\\", \\\"stage\\\": \\\"compute\\\"}\"\n"
           "cp \"" +
           QFile::encodeName(fixtures) + "/$strategy.json\" \"$out\"";
}

int runsIn(const QString& path) {
    if (!QFile::exists(path)) {
        return -1;
    }
    const LoadResult r = TraceLoader::loadNow(path, RunOrigin::Restored);
    return r.ok() ? int(r.runs.size()) : -2;
}

QStringList tracesUnder(const QString& folder) {
    QStringList files;
    QDirIterator it(folder, {QStringLiteral("*.json")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        files << it.next();
    }
    return files;
}

QByteArray contentOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Files beside `path` named <name of path>.corrupt-<UTC time>, e.g.
// session.json.corrupt-20261203T091500Z.
QStringList movedAside(const QString& path) {
    const QFileInfo info(path);
    QStringList found;
    const QRegularExpression pattern(QRegularExpression::escape(info.fileName()) +
                                     QStringLiteral("\\.corrupt-\\d{8}T\\d{6}Z"));
    for (const QString& name : info.dir().entryList(QDir::AllEntries | QDir::NoDotAndDotDot)) {
        if (pattern.match(name).hasMatch() && pattern.match(name).capturedLength() == name.size()) {
            found << info.dir().filePath(name);
        }
    }
    return found;
}

QStringList ids(const Session& session) {
    QStringList list;
    for (const auto& entry : session.runs()) {
        list << entry->id;
    }
    return list;
}

} // namespace

class TestSessionController : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void init();
    void runFinishingAddsRunsAndAutosaves();
    void failedRunIsReportedAsASignal();
    void cancelIsNotAFailure();
    void unreadableRunTraceIsReportedAndRemoved();
    void planErrorsAreRefusals();
    void devicesAreListedOrTheErrorSaid();
    void gpuRunWaitsForTheDeviceList();
    void chunksAndStreamsReachTheCli();
    void restoreOfferHoldsTheAutosaveUntilAnswered();
    void restoreAdoptsOrphansAndRestoresARunOnce();
    void orphanWhoseRunsWereSavedIsDeleted();
    void restoredRunsReplaceSamples();
    void traceOpenedBeforeTheRestoreKeepsTheSavedSession();
    void cancelledRestoreKeepsTheSavedSession();
    void corruptSessionIsMovedAside();
    void unreadableSessionIsMovedAsideNeverReplacedByA000File();
    void sessionFileIsOwnerOnly();
    void deviceSessionFileIsRefusedAndKept_data();
    void deviceSessionFileIsRefusedAndKept();
    void abandonedLockIsTakenOver_data();
    void abandonedLockIsTakenOver();
    void sessionFileThroughADanglingLinkIsOwnerOnly();
    void secondInstanceUsesItsOwnFileAndBothSurvive();
    void loadsJoinInTheOrderAskedFor();
    void staleLoadsNeverJoin();
    void exportWritesOrSaysWhy();

  private:
    // A stand-in slicescope-cli: `devices` runs devicesBody, anything else runBody with $out
    // (the -o argument) and $strategy (the --strategy argument) set.
    QString fakeCli(const QByteArray& runBody, const QByteArray& devicesBody = kDevicesWithAPreset);
    std::unique_ptr<SessionController> controller(const QByteArray& runBody);
    QString writeFixture(const QString& name, const trace::Run& run);

    QTemporaryDir dir_;
    QString case_; // this test's folder
    QString sessionFile_;
    QString fixtures_;
};

void TestSessionController::initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
}

void TestSessionController::init() {
    case_ = dir_.filePath(QString::fromLatin1(QTest::currentTestFunction()));
    QVERIFY(QDir().mkpath(case_));
    sessionFile_ = QDir(case_).filePath(QStringLiteral("session.json"));
    fixtures_ = QDir(case_).filePath(QStringLiteral("fixtures"));
    QVERIFY(QDir().mkpath(fixtures_));
}

QString TestSessionController::fakeCli(const QByteArray& runBody, const QByteArray& devicesBody) {
    const QString path = QDir(case_).filePath(QStringLiteral("slicescope-cli"));
    QFile script(path);
    if (!script.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return {};
    }
    script.write(
        QByteArray("#!/bin/sh\n"
                   "if [ \"$1\" = devices ]; then\n" +
                   devicesBody +
                   "\nexit 0\nfi\n"
                   "out=; strategy=; previous=\n"
                   "for argument in \"$@\"; do\n"
                   "  case \"$previous\" in -o) out=$argument;; --strategy) strategy=$argument;; "
                   "esac\n"
                   "  previous=$argument\n"
                   "done\n" +
                   runBody + "\n"));
    script.close();
    QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    return path;
}

std::unique_ptr<SessionController> TestSessionController::controller(const QByteArray& runBody) {
    auto c = std::make_unique<SessionController>(sessionFile_);
    c->setCliProgram(fakeCli(runBody));
    return c;
}

QString TestSessionController::writeFixture(const QString& name, const trace::Run& run) {
    const QString path = QDir(fixtures_).filePath(name);
    return trace::writeTrace(trace::Trace{"test", {run}}, path.toStdString()) ? path : QString();
}

void TestSessionController::runFinishingAddsRunsAndAutosaves() {
    QVERIFY(!writeFixture(QStringLiteral("cpu-serial.json"),
                          testhelpers::gpuShapedRun("cpu-serial", trace::RunMode::MeasuredCpu))
                 .isEmpty());
    QVERIFY(!writeFixture(QStringLiteral("cpu-parallel.json"),
                          testhelpers::gpuShapedRun("cpu-parallel", trace::RunMode::MeasuredCpu, 2))
                 .isEmpty());
    auto c = controller(copiesFixtures(fixtures_));
    QSignalSpy started(c.get(), &SessionController::runStarted);
    QSignalSpy progress(c.get(), &SessionController::runProgress);
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    QSignalSpy failed(c.get(), &SessionController::runFailed);
    QSignalSpy finished(c.get(), &SessionController::runFinished);
    RunConfig config;
    config.strategies = {QStringLiteral("cpu-serial"), QStringLiteral("cpu-parallel")};
    QCOMPARE(c->startRun(config), SessionController::RunStart::Started);
    QVERIFY(c->isRunning());
    QCOMPARE(c->startRun(config), SessionController::RunStart::Busy);
    QCOMPARE(started.count(), 1);
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QVERIFY(failed.isEmpty());
    QVERIFY(std::any_of(progress.begin(), progress.end(), [](const QList<QVariant>& args) {
        return args.at(1).toString() == QStringLiteral("cpu-parallel: compute");
    }));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, kGenerousMs);
    QCOMPARE(ids(*c->session()),
             (QStringList{QStringLiteral("cpu-serial"), QStringLiteral("cpu-parallel")}));
    QCOMPARE(c->session()->at(0)->origin, RunOrigin::Measured);
    QCOMPARE(loaded.at(0).at(1).value<RunOrigin>(), RunOrigin::Measured);
    QCOMPARE(loaded.at(0).at(2).toInt(), 1);
    // Autosaved; once the autosave holds the runs, their traces are deleted.
    QVERIFY(c->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 2, kGenerousMs);
    QTRY_COMPARE_WITH_TIMEOUT(tracesUnder(c->runsFolder()), QStringList(), kGenerousMs);
    c.reset();
    QVERIFY(!QDir(PendingRuns::rootFor(sessionFile_)).exists()); // nothing left to offer
}

void TestSessionController::failedRunIsReportedAsASignal() {
    auto c = controller("echo \"strategy $strategy broke down\" >&2; exit 2");
    QSignalSpy failed(c.get(), &SessionController::runFailed);
    QSignalSpy finished(c.get(), &SessionController::runFinished);
    RunConfig config;
    config.strategies = {QStringLiteral("cpu-serial")};
    QCOMPARE(c->startRun(config), SessionController::RunStart::Started);
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QCOMPARE(failed.count(), 1);
    QVERIFY2(failed.at(0).at(0).toString().contains(QStringLiteral("cpu-serial")),
             qPrintable(failed.at(0).at(0).toString())); // the job's label
    QCOMPARE(failed.at(0).at(1).toString(), QStringLiteral("strategy cpu-serial broke down"));
    QVERIFY(c->session()->isEmpty());
    QVERIFY(!c->isRunning());
}

void TestSessionController::cancelIsNotAFailure() {
    auto c = controller("echo running; exec sleep 600");
    QSignalSpy logs(c.get(), &SessionController::logLine);
    QSignalSpy failed(c.get(), &SessionController::runFailed);
    QSignalSpy finished(c.get(), &SessionController::runFinished);
    RunConfig config;
    config.strategies = {QStringLiteral("cpu-serial"), QStringLiteral("cpu-parallel")};
    QCOMPARE(c->startRun(config), SessionController::RunStart::Started);
    QTRY_VERIFY_WITH_TIMEOUT(std::any_of(logs.begin(), logs.end(),
                                         [](const QList<QVariant>& args) {
                                             return args.at(0).toString() ==
                                                    QStringLiteral("running");
                                         }),
                             kGenerousMs);
    c->cancel();
    QVERIFY(finished.wait(10'000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY(failed.isEmpty()); // said in the log, not as a failure
    QVERIFY(std::any_of(logs.begin(), logs.end(), [](const QList<QVariant>& args) {
        return args.at(0).toString().startsWith(QStringLiteral("Cancelled"));
    }));
    QVERIFY(c->session()->isEmpty());
}

void TestSessionController::unreadableRunTraceIsReportedAndRemoved() {
    auto c = controller("echo '{\"format\": \"slicescope-trace\", \"runs\": [' > \"$out\"");
    QSignalSpy traceFailed(c.get(), &SessionController::traceFailed);
    RunConfig config;
    config.strategies = {QStringLiteral("cpu-serial")};
    QCOMPARE(c->startRun(config), SessionController::RunStart::Started);
    QVERIFY(traceFailed.wait(kGenerousMs));
    const QString path = traceFailed.at(0).at(0).toString();
    QVERIFY(path.startsWith(c->runsFolder()));
    QVERIFY(!traceFailed.at(0).at(1).toString().isEmpty());
    QVERIFY(!QFile::exists(path)); // nothing in it to keep for a later start
    QVERIFY(c->session()->isEmpty());
}

void TestSessionController::planErrorsAreRefusals() {
    auto c = controller("exit 0");
    QSignalSpy refused(c.get(), &SessionController::runRefused);
    QSignalSpy started(c.get(), &SessionController::runStarted);
    QCOMPARE(c->startRun(RunConfig{}), SessionController::RunStart::Refused); // no strategy
    QCOMPARE(refused.count(), 1);
    QVERIFY(!refused.at(0).at(0).toString().isEmpty());
    QCOMPARE(c->startRecording(RecordConfig{}), SessionController::RunStart::Refused); // no program
    QCOMPARE(refused.count(), 2);
    QVERIFY(started.isEmpty());
}

void TestSessionController::devicesAreListedOrTheErrorSaid() {
    {
        auto c = controller("exit 0");
        QSignalSpy listed(c.get(), &SessionController::devicesListed);
        c->queryDevices();
        QVERIFY(listed.wait(kGenerousMs));
        QCOMPARE(listed.at(0).at(0).toString(), QString());
        QCOMPARE(c->devices()->rowCount(), 1);
        QCOMPARE(c->devices()->at(0).presetId, QStringLiteral("h200"));
        QCOMPARE(c->devices()->noDevicesReason(), QStringLiteral("no driver"));
    }
    auto c = std::make_unique<SessionController>(sessionFile_);
    c->setCliProgram(fakeCli("exit 0", "echo 'cannot talk to the driver' >&2; exit 3"));
    QSignalSpy listed(c.get(), &SessionController::devicesListed);
    c->queryDevices();
    QVERIFY(listed.wait(kGenerousMs));
    QCOMPARE(listed.at(0).at(0).toString(), QStringLiteral("cannot talk to the driver"));
    QCOMPARE(c->devices()->rowCount(), 0);
}

void TestSessionController::gpuRunWaitsForTheDeviceList() {
    auto c = std::make_unique<SessionController>(sessionFile_);
    c->setCliProgram(fakeCli("exec sleep 600", "exec sleep 600"));
    c->queryDevices();
    RunConfig config;
    config.strategies = {QStringLiteral("slice-outer")};
    QSignalSpy started(c.get(), &SessionController::runStarted);
    QCOMPARE(c->startRun(config), SessionController::RunStart::WaitingForDevices);
    QVERIFY(!c->isRunning());
    // CPU strategies need no device: they go at once.
    config.strategies = {QStringLiteral("cpu-serial")};
    QCOMPARE(c->startRun(config), SessionController::RunStart::Started);
    QCOMPARE(started.count(), 1);
    c->cancel();
}

// The Launch box's chunks and streams reach the CLI of a GPU job (here a modelled one).
void TestSessionController::chunksAndStreamsReachTheCli() {
    const QString argsFile = QDir(case_).filePath(QStringLiteral("arguments.txt"));
    auto c = controller("echo \"$@\" > \"" + QFile::encodeName(argsFile) + "\"; exit 2");
    QSignalSpy listed(c.get(), &SessionController::devicesListed);
    c->queryDevices();
    QVERIFY(listed.wait(kGenerousMs));
    QSignalSpy finished(c.get(), &SessionController::runFinished);
    RunConfig config;
    config.strategies = {QStringLiteral("elementwise-broadcast")};
    config.memory = QStringLiteral("pinned");
    config.chunks = 8;
    config.streams = 4;
    config.device = c->devices()->at(0);
    QCOMPARE(c->startRun(config), SessionController::RunStart::Started);
    QVERIFY(finished.wait(kGenerousMs));
    QFile f(argsFile);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString arguments = QString::fromUtf8(f.readAll()).trimmed();
    QVERIFY2(arguments.startsWith(QStringLiteral("model ")), qPrintable(arguments));
    QVERIFY2(arguments.contains(QStringLiteral("--chunks 8 --streams 4")), qPrintable(arguments));
}

void TestSessionController::restoreOfferHoldsTheAutosaveUntilAnswered() {
    const trace::Run saved = testhelpers::gpuShapedRun("saved", trace::RunMode::MeasuredGpu);
    QVERIFY(trace::writeTrace(trace::Trace{"test", {saved}}, sessionFile_.toStdString()));
    const QByteArray before = [&] {
        QFile f(sessionFile_);
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }();
    const QString opened =
        writeFixture(QStringLiteral("opened.json"), testhelpers::denseRun("opened", 10));
    auto c = controller("exit 0");
    QVERIFY(c->hasSavedSession());
    QSignalSpy offered(c.get(), &SessionController::restoreOffered);
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->offerRestore();
    QCOMPARE(offered.count(), 1);
    QCOMPARE(offered.at(0).at(0).toBool(), true);
    QCOMPARE(offered.at(0).at(1).toInt(), 0);
    c->openTrace(opened);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(c->session()->count(), 1);
    QVERIFY(c->waitForSaved());
    QTest::qWait(50);
    {
        QFile f(sessionFile_);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QCOMPARE(f.readAll(), before); // the offer is open: the saved session is untouched
    }
    // Discarded: the session as it is now is saved in its place.
    c->discardSavedSession();
    QVERIFY(c->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 1, kGenerousMs);
    const LoadResult now = TraceLoader::loadNow(sessionFile_, RunOrigin::Restored);
    QCOMPARE(now.runs.at(0)->id, QStringLiteral("opened"));
}

void TestSessionController::restoreAdoptsOrphansAndRestoresARunOnce() {
    // The saved session holds a; a GUI that died after saving it, and before deleting the trace
    // of a, also left c, which never reached the session file.
    const trace::Run a = testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu);
    const trace::Run c3 = testhelpers::gpuShapedRun("c", trace::RunMode::MeasuredGpu, 3);
    QVERIFY(trace::writeTrace(trace::Trace{"test", {a}}, sessionFile_.toStdString()));
    const QString deadFolder =
        QDir(PendingRuns::rootFor(sessionFile_)).filePath(QStringLiteral("99999999-1"));
    QVERIFY(QDir().mkpath(deadFolder)); // no lock in it: its process is gone
    const QString orphan = QDir(deadFolder).filePath(QStringLiteral("run-1-gpu.json"));
    QVERIFY(trace::writeTrace(trace::Trace{"test", {a, c3}}, orphan.toStdString()));

    auto c = controller("exit 0");
    QVERIFY(c->hasSavedSession());
    QSignalSpy offered(c.get(), &SessionController::restoreOffered);
    c->offerRestore();
    QCOMPARE(offered.at(0).at(0).toBool(), true);
    QCOMPARE(offered.at(0).at(1).toInt(), 1);
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->restoreSession();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, kGenerousMs);
    QCOMPARE(ids(*c->session()), (QStringList{QStringLiteral("a"), QStringLiteral("c")}));
    for (const auto& entry : c->session()->runs()) {
        QCOMPARE(entry->origin, RunOrigin::Restored);
    }
    QVERIFY(!QDir(deadFolder).exists()); // adopted
    QVERIFY(c->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 2, kGenerousMs);
    // The adopted trace is deleted once the autosave holds its run.
    QTRY_COMPARE_WITH_TIMEOUT(tracesUnder(PendingRuns::rootFor(sessionFile_)), QStringList(),
                              kGenerousMs);
}

void TestSessionController::orphanWhoseRunsWereSavedIsDeleted() {
    const trace::Run a = testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu);
    QVERIFY(trace::writeTrace(trace::Trace{"test", {a}}, sessionFile_.toStdString()));
    const QString deadFolder =
        QDir(PendingRuns::rootFor(sessionFile_)).filePath(QStringLiteral("99999999-2"));
    QVERIFY(QDir().mkpath(deadFolder));
    QVERIFY(trace::writeTrace(trace::Trace{"test", {a}},
                              QDir(deadFolder).filePath(QStringLiteral("a.json")).toStdString()));
    auto c = controller("exit 0");
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->restoreSession();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, kGenerousMs);
    QCOMPARE(ids(*c->session()), QStringList{QStringLiteral("a")}); // once
    // Nothing new in it: deleted at once, not kept for an autosave.
    QCOMPARE(tracesUnder(PendingRuns::rootFor(sessionFile_)), QStringList());
}

void TestSessionController::restoredRunsReplaceSamples() {
    QVERIFY(trace::writeTrace(
        trace::Trace{"test", {testhelpers::gpuShapedRun("restored", trace::RunMode::MeasuredGpu)}},
        sessionFile_.toStdString()));
    const QString sample =
        writeFixture(QStringLiteral("sample.json"), testhelpers::denseRun("sample", 10));
    auto c = controller("exit 0");
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->offerRestore();
    c->openSample(sample);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(ids(*c->session()), QStringList{QStringLiteral("sample")});
    c->restoreSession();
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(ids(*c->session()), QStringList{QStringLiteral("restored")});
}

void TestSessionController::traceOpenedBeforeTheRestoreKeepsTheSavedSession() {
    // `slicescope --restore-session TRACE`: the trace is opened first, the restore asked for
    // after it; the trace's run must not be autosaved over the saved runs in between.
    const trace::Run a = testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu);
    const trace::Run b = testhelpers::gpuShapedRun("b", trace::RunMode::MeasuredGpu, 2);
    QVERIFY(trace::writeTrace(trace::Trace{"test", {a, b}}, sessionFile_.toStdString()));
    const QByteArray before = contentOf(sessionFile_);
    const QString opened =
        writeFixture(QStringLiteral("opened.json"), testhelpers::denseRun("opened", 10));
    auto c = controller("exit 0");
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->openTrace(opened);
    QVERIFY(loaded.wait(kGenerousMs));
    QVERIFY(c->waitForSaved());
    QTest::qWait(50);
    QCOMPARE(contentOf(sessionFile_), before); // nothing chosen yet: untouched
    c->restoreSession();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, kGenerousMs);
    QVERIFY(c->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 3, kGenerousMs);
}

void TestSessionController::cancelledRestoreKeepsTheSavedSession() {
    // Restore, Cancel while it loads, then a run: the saved runs stay on disk, offered again.
    const trace::Run a = testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu);
    const trace::Run b = testhelpers::denseRun("b", 100'000);
    QVERIFY(trace::writeTrace(trace::Trace{"test", {a, b}}, sessionFile_.toStdString()));
    const QByteArray before = contentOf(sessionFile_);
    QVERIFY(!writeFixture(QStringLiteral("cpu-serial.json"),
                          testhelpers::gpuShapedRun("cpu-serial", trace::RunMode::MeasuredCpu))
                 .isEmpty());
    auto c = controller(copiesFixtures(fixtures_));
    QSignalSpy offered(c.get(), &SessionController::restoreOffered);
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    QSignalSpy finished(c.get(), &SessionController::runFinished);
    c->offerRestore();
    c->restoreSession();
    QVERIFY(c->isLoading());
    c->cancel();
    QCOMPARE(offered.count(), 2); // offered again: cancelling is not discarding
    RunConfig config;
    config.strategies = {QStringLiteral("cpu-serial")};
    QCOMPARE(c->startRun(config), SessionController::RunStart::Started);
    QVERIFY(finished.wait(kGenerousMs));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, kGenerousMs);
    QVERIFY(c->waitForSaved());
    QTest::qWait(50);
    QCOMPARE(contentOf(sessionFile_), before);
    // Restored now: the saved runs and the new one, all on disk.
    c->restoreSession();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, kGenerousMs);
    QVERIFY(c->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 3, kGenerousMs);
}

void TestSessionController::corruptSessionIsMovedAside() {
    const QByteArray garbage = "{\"format\": \"slicescope-trace\", \"runs\": [{\"id\": ";
    {
        QFile f(sessionFile_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(garbage);
    }
    const QString opened =
        writeFixture(QStringLiteral("opened.json"), testhelpers::denseRun("opened", 10));
    auto c = controller("exit 0");
    QVERIFY(c->hasSavedSession());
    QSignalSpy notice(c.get(), &SessionController::sessionNotice);
    QSignalSpy failed(c.get(), &SessionController::traceFailed);
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->offerRestore();
    c->openTrace(opened);
    QVERIFY(loaded.wait(kGenerousMs));
    c->restoreSession();
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, kGenerousMs);
    const QStringList aside = movedAside(sessionFile_);
    QCOMPARE(aside.size(), 1);
    QCOMPARE(contentOf(aside.at(0)), garbage); // kept as it was, for the user to look at
    QCOMPARE(notice.count(), 1);
    QVERIFY(notice.at(0).at(0).toString().contains(aside.at(0)));
    // The session goes on in a new file.
    QVERIFY(c->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 1, kGenerousMs);
}

void TestSessionController::unreadableSessionIsMovedAsideNeverReplacedByA000File() {
    const trace::Run a = testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu);
    QVERIFY(trace::writeTrace(trace::Trace{"test", {a}}, sessionFile_.toStdString()));
    QVERIFY(QFile::setPermissions(sessionFile_, QFileDevice::Permissions()));
    const bool readable = QFile(sessionFile_).open(QIODevice::ReadOnly); // root reads mode 000
    const QString opened =
        writeFixture(QStringLiteral("opened.json"), testhelpers::denseRun("opened", 10));
    auto c = controller("exit 0");
    QSignalSpy notice(c.get(), &SessionController::sessionNotice);
    QSignalSpy done(c.get(), &SessionController::traceLoaded);
    QSignalSpy failed(c.get(), &SessionController::traceFailed);
    c->openTrace(opened);
    QVERIFY(done.wait(kGenerousMs));
    c->restoreSession();
    QTRY_COMPARE_WITH_TIMEOUT(done.count() + failed.count(), 2, kGenerousMs);
    QVERIFY(c->waitForSaved());
    if (readable) {
        // As root: restored, and the new file is the user's alone, not mode 000.
        QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 2, kGenerousMs);
        QVERIFY(notice.isEmpty());
    } else {
        QCOMPARE(movedAside(sessionFile_).size(), 1);
        QCOMPARE(notice.count(), 1);
        QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 1, kGenerousMs);
    }
    QCOMPARE(QFile::permissions(sessionFile_) & 0x7077,
             QFileDevice::ReadOwner | QFileDevice::WriteOwner);

    // Unreadable even for root: a folder where the file should be. Moved aside, not replaced.
    c.reset();
    QVERIFY(QFile::remove(sessionFile_));
    QVERIFY(QDir().mkpath(sessionFile_));
    auto d = controller("exit 0");
    QVERIFY(d->hasSavedSession());
    QSignalSpy noticeD(d.get(), &SessionController::sessionNotice);
    QSignalSpy failedD(d.get(), &SessionController::traceFailed);
    QSignalSpy loadedD(d.get(), &SessionController::traceLoaded);
    d->openTrace(opened);
    d->restoreSession();
    QTRY_COMPARE_WITH_TIMEOUT(failedD.count(), 1, kGenerousMs);
    QTRY_COMPARE_WITH_TIMEOUT(loadedD.count(), 1, kGenerousMs);
    QCOMPARE(noticeD.count(), 1);
    const QStringList aside = movedAside(sessionFile_);
    QCOMPARE(aside.size(), readable ? 1 : 2);
    QVERIFY(std::any_of(aside.begin(), aside.end(),
                        [](const QString& p) { return QFileInfo(p).isDir(); }));
    QVERIFY(d->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 1, kGenerousMs);
}

void TestSessionController::sessionFileIsOwnerOnly() {
    const mode_t umaskBefore = ::umask(022); // a usual umask: new files would be 0644
    const QString opened =
        writeFixture(QStringLiteral("opened.json"), testhelpers::denseRun("opened", 10));
    auto c = controller("exit 0");
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->openTrace(opened);
    QVERIFY(loaded.wait(kGenerousMs));
    QVERIFY(c->waitForSaved());
    ::umask(umaskBefore);
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 1, kGenerousMs);
    QCOMPARE(QFile::permissions(sessionFile_) & 0x7077,
             QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

void TestSessionController::deviceSessionFileIsRefusedAndKept_data() {
    QTest::addColumn<bool>("fifo");
    QTest::newRow("fifo") << true;
    QTest::newRow("link-to-dev-null") << false;
}

// --session-file naming a device: said so, and nothing is created, renamed or deleted beside it.
void TestSessionController::deviceSessionFileIsRefusedAndKept() {
    QFETCH(bool, fifo);
    const QString folder = QDir(case_).filePath(QString::fromLatin1(QTest::currentDataTag()));
    QVERIFY(QDir().mkpath(folder));
    sessionFile_ = QDir(folder).filePath(QStringLiteral("session.json"));
    if (fifo) {
        QCOMPARE(::mkfifo(QFile::encodeName(sessionFile_).constData(), 0600), 0);
    } else {
        // A copy of /dev/null where nodes may be made (root): a regression hits it, not the
        // machine's.
        QString device = QDir(case_).filePath(QStringLiteral("null-device"));
        if (::mknod(QFile::encodeName(device).constData(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
            device = QStringLiteral("/dev/null");
        }
        QVERIFY(QFile::link(device, sessionFile_));
    }
    const QStringList before = QDir(folder).entryList(QDir::AllEntries | QDir::NoDotAndDotDot |
                                                      QDir::Hidden | QDir::System);
    const QString opened =
        writeFixture(QStringLiteral("opened.json"), testhelpers::denseRun("opened", 10));
    {
        auto c = controller("exit 0");
        QSignalSpy notice(c.get(), &SessionController::sessionNotice);
        QVERIFY(notice.wait(kGenerousMs));
        QVERIFY2(notice.at(0).at(0).toString().contains(QStringLiteral("not a session file")),
                 qPrintable(notice.at(0).at(0).toString()));
        QVERIFY(!c->hasSavedSession());
        QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
        c->openTrace(opened);
        QVERIFY(loaded.wait(kGenerousMs));
        QVERIFY(c->waitForSaved());
        c->discardSavedSession();
        QVERIFY(c->waitForSaved());
    }
    QCOMPARE(QDir(folder).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden |
                                    QDir::System),
             before);
    struct stat st {};
    QCOMPARE(::stat(QFile::encodeName(sessionFile_).constData(), &st), 0);
    QVERIFY(fifo ? S_ISFIFO(st.st_mode) : S_ISCHR(st.st_mode));
}

void TestSessionController::abandonedLockIsTakenOver_data() {
    QTest::addColumn<QByteArray>("lock");
    QTest::newRow("empty") << QByteArray();
    QTest::newRow("dead-pid") << QByteArray("999999999\n");
}

// A lock QLockFile cannot judge no longer hides session.json (every start used session-2.json).
void TestSessionController::abandonedLockIsTakenOver() {
    QFETCH(QByteArray, lock);
    const QString folder = QDir(case_).filePath(QString::fromLatin1(QTest::currentDataTag()));
    QVERIFY(QDir().mkpath(folder));
    sessionFile_ = QDir(folder).filePath(QStringLiteral("session.json"));
    const QString saved =
        writeFixture(QStringLiteral("saved.json"), testhelpers::denseRun("x", 10));
    QVERIFY(QFile::copy(saved, sessionFile_));
    const QString lockPath = sessionFile_ + QStringLiteral(".lock");
    {
        QFile file(lockPath);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(lock);
        file.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                         QFileDevice::FileModificationTime);
    }
    auto c = controller("exit 0");
    QCOMPARE(c->sessionFile(), sessionFile_);
    QVERIFY(c->hasSavedSession());
}

// A session file reached through a dangling link is created where the link points, 0600.
void TestSessionController::sessionFileThroughADanglingLinkIsOwnerOnly() {
    const QString real = QDir(case_).filePath(QStringLiteral("real-session.json"));
    QVERIFY(QFile::link(real, sessionFile_));
    const mode_t umaskBefore = ::umask(022);
    const QString opened =
        writeFixture(QStringLiteral("opened.json"), testhelpers::denseRun("opened", 10));
    auto c = controller("exit 0");
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->openTrace(opened);
    QVERIFY(loaded.wait(kGenerousMs));
    QVERIFY(c->waitForSaved());
    ::umask(umaskBefore);
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(real), 1, kGenerousMs);
    QVERIFY(QFileInfo(sessionFile_).isSymLink());
    QCOMPARE(QFile::permissions(real) & 0x7077, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

void TestSessionController::secondInstanceUsesItsOwnFileAndBothSurvive() {
    const QString first =
        writeFixture(QStringLiteral("first.json"), testhelpers::denseRun("first", 10));
    const QString second =
        writeFixture(QStringLiteral("second.json"), testhelpers::denseRun("second", 11));
    // (11 activities: runs alike in every activity would count as one run restored twice)
    auto one = controller("exit 0");
    QCOMPARE(one->sessionFile(), sessionFile_);
    auto two = controller("exit 0");
    QVERIFY(two->sessionFile() != sessionFile_);
    QCOMPARE(QFileInfo(two->sessionFile()).dir(), QFileInfo(sessionFile_).dir());
    QSignalSpy notice(two.get(), &SessionController::sessionNotice);
    QVERIFY(notice.wait(kGenerousMs)); // said so
    QVERIFY(notice.at(0).at(0).toString().contains(two->sessionFile()));
    QSignalSpy loadedOne(one.get(), &SessionController::traceLoaded);
    QSignalSpy loadedTwo(two.get(), &SessionController::traceLoaded);
    one->openTrace(first);
    two->openTrace(second);
    QVERIFY(loadedOne.wait(kGenerousMs));
    QTRY_COMPARE_WITH_TIMEOUT(loadedTwo.count(), 1, kGenerousMs);
    QVERIFY(one->waitForSaved());
    QVERIFY(two->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 1, kGenerousMs);
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(two->sessionFile()), 1, kGenerousMs);
    const QString secondFile = two->sessionFile();
    two.reset();
    one.reset();

    // The next start offers both and restores both into its own file.
    auto next = controller("exit 0");
    QCOMPARE(next->sessionFile(), sessionFile_);
    QVERIFY(next->hasSavedSession());
    QSignalSpy loaded(next.get(), &SessionController::traceLoaded);
    next->restoreSession();
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, kGenerousMs);
    QCOMPARE(ids(*next->session()),
             (QStringList{QStringLiteral("first"), QStringLiteral("second")}));
    QVERIFY(next->waitForSaved());
    QTRY_COMPARE_WITH_TIMEOUT(runsIn(sessionFile_), 2, kGenerousMs);
    QTRY_VERIFY_WITH_TIMEOUT(!QFile::exists(secondFile), kGenerousMs); // its runs are saved here
}

void TestSessionController::loadsJoinInTheOrderAskedFor() {
    // The first is far bigger than the second, which finishes reading first.
    const QString big =
        writeFixture(QStringLiteral("big.json"), testhelpers::denseRun("big", 200'000));
    const QString small =
        writeFixture(QStringLiteral("small.json"), testhelpers::denseRun("small", 10));
    auto c = controller("exit 0");
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->openTrace(big);
    c->openTrace(small);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, kGenerousMs);
    QCOMPARE(ids(*c->session()), (QStringList{QStringLiteral("big"), QStringLiteral("small")}));
    QCOMPARE(loaded.at(0).at(0).toString(), big);
}

void TestSessionController::staleLoadsNeverJoin() {
    const QString first =
        writeFixture(QStringLiteral("first.json"), testhelpers::denseRun("first", 50'000));
    const QString second =
        writeFixture(QStringLiteral("second.json"), testhelpers::denseRun("second", 10));
    auto c = controller("exit 0");
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    QSignalSpy loading(c.get(), &SessionController::loadingChanged);
    // A new session while a trace is loading: its runs never arrive.
    c->openTrace(first);
    QVERIFY(c->isLoading());
    c->clearSession();
    c->openTrace(second);
    QTRY_VERIFY_WITH_TIMEOUT(!c->isLoading(), kGenerousMs);
    QTest::qWait(50);
    QCOMPARE(ids(*c->session()), QStringList{QStringLiteral("second")});
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(loaded.at(0).at(0).toString(), second);
    // Cancel while loading: nothing of it joins.
    c->openTrace(first);
    c->cancel();
    QTRY_VERIFY_WITH_TIMEOUT(!c->isLoading(), kGenerousMs);
    QTest::qWait(50);
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(c->session()->count(), 1);
    QCOMPARE(loading.last().at(0).toBool(), false);
}

void TestSessionController::exportWritesOrSaysWhy() {
    auto c = controller("exit 0");
    QSignalSpy failed(c.get(), &SessionController::exportFailed);
    QSignalSpy exported(c.get(), &SessionController::exported);
    const QString out = QDir(case_).filePath(QStringLiteral("out.json"));
    QFuture<QString> done = c->exportSession(out, SessionController::ExportFormat::Trace);
    QVERIFY(!done.result().isEmpty()); // nothing to write
    QCOMPARE(failed.count(), 1);
    QSignalSpy loaded(c.get(), &SessionController::traceLoaded);
    c->openTrace(writeFixture(QStringLiteral("in.json"),
                              testhelpers::gpuShapedRun("g", trace::RunMode::Modelled)));
    QVERIFY(loaded.wait(kGenerousMs));
    done = c->exportSession(out, SessionController::ExportFormat::Trace);
    QVERIFY(exported.wait(kGenerousMs));
    QCOMPARE(done.result(), QString());
    QCOMPARE(exported.at(0).at(0).toString(), out);
    QCOMPARE(runsIn(out), 1);
    done = c->exportSession(QStringLiteral("/nonexistent-dir/x.csv"),
                            SessionController::ExportFormat::Csv);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, kGenerousMs);
    QVERIFY(failed.at(1).at(0).toString().contains(QStringLiteral("/nonexistent-dir/x.csv")));
}

QTEST_GUILESS_MAIN(TestSessionController)
#include "tst_sessioncontroller.moc"
