// A killed GUI loses no finished run: a real slicescope process runs strategies, is SIGKILLed
// (after a run, and in the middle of one), and the next start offers every finished run back and
// restores it; the child it was running dies with it and leaves no half-written file.
#include "dialoghelpers.h"
#include "gui/logpanel.h"
#include "gui/mainwindow.h"
#include "gui/messagebanner.h"
#include "models/pendingruns.h"
#include "models/session.h"
#include "models/sessioncontroller.h"
#include "models/traceloader.h"
#include "testhelpers.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <signal.h>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

constexpr int kGenerousMs = 240'000;

int savedRuns(const QString& path) {
    if (!QFile::exists(path)) {
        return -1;
    }
    const LoadResult r = TraceLoader::loadNow(path, RunOrigin::Restored);
    return r.ok() ? int(r.runs.size()) : -2; // -2: a torn file, which must never happen
}

QProcessEnvironment environment(const QTemporaryDir& home) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), home.filePath(QStringLiteral("config")));
    env.insert(QStringLiteral("XDG_DATA_HOME"), home.filePath(QStringLiteral("data")));
    env.insert(QStringLiteral("SLICESCOPE_CLI"), testhelpers::cliPath());
    return env;
}

// The slicescope-cli children of a process: pid and command line (arguments joined by spaces).
std::vector<std::pair<qint64, QString>> cliChildrenOf(qint64 parent) {
    std::vector<std::pair<qint64, QString>> children;
    for (const QString& name : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
        bool isPid = false;
        const qint64 pid = name.toLongLong(&isPid);
        if (!isPid) {
            continue;
        }
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly)) {
            continue;
        }
        // "pid (comm) state ppid ...": comm may hold spaces, so read after the last ')'.
        const QByteArray text = stat.readAll();
        const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
        if (fields.size() < 2 || fields[1].toLongLong() != parent || fields[0] == "Z" ||
            !text.contains("(slicescope-cli)")) {
            continue;
        }
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        if (cmdline.open(QIODevice::ReadOnly)) {
            children.emplace_back(pid,
                                  QString::fromLocal8Bit(cmdline.readAll().replace('\0', ' ')));
        }
    }
    return children;
}

// Alive: not gone and not a zombie waiting to be reaped.
bool isAlive(qint64 pid) {
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly)) {
        return false;
    }
    const QByteArray text = stat.readAll();
    return text.mid(text.lastIndexOf(')') + 2, 1) != "Z";
}

// Every trace under folder (temporary files of interrupted writes aside) reads whole.
QStringList tornTracesUnder(const QString& folder) {
    QStringList torn;
    QDirIterator it(folder, {QStringLiteral("*.json")}, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        if (!TraceLoader::loadNow(path, RunOrigin::Restored).ok()) {
            torn << path;
        }
    }
    return torn;
}

MessageBanner* restoreBanner(const MainWindow& window) {
    return window.findChild<MessageBanner*>(QStringLiteral("restoreBanner"));
}

QPushButton* bannerButton(MessageBanner* banner, const QString& text) {
    for (auto* button : banner->findChildren<QPushButton*>()) {
        if (button->text() == text) {
            return button;
        }
    }
    return nullptr;
}

} // namespace

class TestSessionRestore : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void killedGuiLosesNoFinishedRun();
    void killDuringARunKeepsTheSavedSession();
    void killDuringASecondRunRestoresTheFirst();
    void runThatFinishedAsTheGuiDiedIsRestored();
    void childrenDieWithAKilledGui();
    void killBeforeTheRestoreKeepsTheSavedRuns();
    void newSessionAsksFirst();
    void closeAllAsksFirst();
    void sessionTooLargeToReadBackIsKeptAndShown();
    void loadErrorsAreShownOnceAndNeverBlock();

  private:
    QTemporaryDir home_;
    QString sessionFile_;
};

void TestSessionRestore::initTestCase() {
    QVERIFY(home_.isValid());
    sessionFile_ = home_.filePath(QStringLiteral("session.json"));
    QStandardPaths::setTestModeEnabled(true);
    qputenv("SLICESCOPE_CLI", testhelpers::cliPath().toUtf8());
}

void TestSessionRestore::killedGuiLosesNoFinishedRun() {
    QProcess gui;
    gui.setProcessEnvironment(environment(home_));
    gui.start(testhelpers::guiPath(), {QStringLiteral("--session-file"), sessionFile_,
                                       QStringLiteral("--no-samples"), QStringLiteral("--shape"),
                                       QStringLiteral("10x200x5"), QStringLiteral("--strategies"),
                                       QStringLiteral("cpu-serial"), QStringLiteral("--run")});
    QVERIFY(gui.waitForStarted(60'000));
    // No signal crosses the process boundary: watch the autosave file appear with the run.
    QTRY_COMPARE_WITH_TIMEOUT(savedRuns(sessionFile_), 1, kGenerousMs);
    QCOMPARE(gui.state(), QProcess::Running);
    gui.kill(); // SIGKILL: no close handler, no chance to save anything more
    QVERIFY(gui.waitForFinished(60'000));
    QCOMPARE(gui.exitStatus(), QProcess::CrashExit);
    QCOMPARE(savedRuns(sessionFile_), 1);

    // The next start offers the run back.
    StartOptions options;
    options.sessionFile = sessionFile_;
    options.noSamples = true;
    MainWindow window(options);
    window.show();
    window.start();
    QVERIFY(restoreBanner(window)->isVisible());
    QVERIFY(restoreBanner(window)->text().contains(QStringLiteral("Restore")));
    QVERIFY(window.controller()->session()->isEmpty());
    QPushButton* restore = nullptr;
    for (auto* button : restoreBanner(window)->findChildren<QPushButton*>()) {
        if (button->text() == QStringLiteral("Restore")) {
            restore = button;
        }
    }
    QVERIFY(restore);
    QSignalSpy loaded(window.controller(), &SessionController::traceLoaded);
    QTest::mouseClick(restore, Qt::LeftButton);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(window.controller()->session()->count(), 1);
    QCOMPARE(window.controller()->session()->at(0)->id, QStringLiteral("cpu-serial"));
    QCOMPARE(window.controller()->session()->at(0)->origin, RunOrigin::Restored);
    QVERIFY(window.controller()->session()->at(0)->run->verification->passed);
    QVERIFY(!restoreBanner(window)->isVisible());
}

void TestSessionRestore::killDuringARunKeepsTheSavedSession() {
    QCOMPARE(savedRuns(sessionFile_), 1); // from the test above
    const QDateTime before = QFileInfo(sessionFile_).lastModified();
    QProcess gui;
    gui.setProcessEnvironment(environment(home_));
    gui.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    gui.start(testhelpers::guiPath(),
              {QStringLiteral("--session-file"), sessionFile_, QStringLiteral("--restore-session"),
               QStringLiteral("--no-samples"), QStringLiteral("--shape"),
               QStringLiteral("100x4000x5"), QStringLiteral("--strategies"),
               QStringLiteral("cpu-serial"), QStringLiteral("--repeat"), QStringLiteral("10000"),
               QStringLiteral("--run")});
    QVERIFY(gui.waitForStarted(60'000));
    // Restored and saved again (a new file, renamed over the old one); the long run is still going.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(sessionFile_).lastModified() != before, kGenerousMs);
    QCOMPARE(savedRuns(sessionFile_), 1);
    gui.kill();
    QVERIFY(gui.waitForFinished(60'000));
    QCOMPARE(savedRuns(sessionFile_), 1); // intact, never torn
}

void TestSessionRestore::killDuringASecondRunRestoresTheFirst() {
    const QString folder = home_.filePath(QStringLiteral("second-run"));
    QVERIFY(QDir().mkpath(folder));
    const QString sessionFile = QDir(folder).filePath(QStringLiteral("session.json"));
    QProcess gui;
    gui.setProcessEnvironment(environment(home_));
    gui.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    // Two CPU strategies: each runs in a child of its own, one after the other, for seconds each.
    gui.start(testhelpers::guiPath(),
              {QStringLiteral("--session-file"), sessionFile, QStringLiteral("--no-samples"),
               QStringLiteral("--shape"), QStringLiteral("100x4000x5"),
               QStringLiteral("--strategies"), QStringLiteral("cpu-serial,cpu-parallel"),
               QStringLiteral("--repeat"), QStringLiteral("1000"), QStringLiteral("--run")});
    QVERIFY(gui.waitForStarted(60'000));

    // The first run is finished and autosaved, and the second one's child is running.
    QString first;
    qint64 child = 0;
    QString childCommand;
    auto secondRunning = [&] {
        if (savedRuns(sessionFile) != 1) {
            return false;
        }
        first = TraceLoader::loadNow(sessionFile, RunOrigin::Restored).runs.at(0)->id;
        for (const auto& [pid, command] : cliChildrenOf(gui.processId())) {
            if (command.contains(QStringLiteral(" run ")) && !command.contains(first)) {
                child = pid;
                childCommand = command;
                return true;
            }
        }
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(secondRunning(), kGenerousMs);
    QCOMPARE(gui.state(), QProcess::Running);
    gui.kill(); // SIGKILL, in the middle of the second run
    QVERIFY(gui.waitForFinished(60'000));
    QCOMPARE(gui.exitStatus(), QProcess::CrashExit);

    // The child died with the GUI: no orphan keeps measuring (or writing) behind the next start.
    QTRY_VERIFY_WITH_TIMEOUT(!isAlive(child), 10'000);
    // Nothing half-written anywhere: the session is whole with the first run, every trace left
    // beside it reads whole, and the killed run wrote no trace.
    QCOMPARE(savedRuns(sessionFile), 1);
    QCOMPARE(tornTracesUnder(folder), QStringList());
    const QString killedOutput =
        childCommand.section(QStringLiteral(" -o "), 1).section(QLatin1Char(' '), 0, 0);
    QVERIFY2(killedOutput.endsWith(QStringLiteral(".json")), qPrintable(childCommand));
    QVERIFY(!QFile::exists(killedOutput));

    // The next start offers the first run back, and restores it once.
    StartOptions options;
    options.sessionFile = sessionFile;
    options.noSamples = true;
    {
        MainWindow window(options);
        window.show();
        window.start();
        QVERIFY(restoreBanner(window)->isVisible());
        QPushButton* restore = bannerButton(restoreBanner(window), QStringLiteral("Restore"));
        QVERIFY(restore);
        QTest::mouseClick(restore, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!window.controller()->isLoading() &&
                                     window.controller()->session()->count() > 0,
                                 kGenerousMs);
        QTest::qWait(100); // any further restored file would land now
        QCOMPARE(window.controller()->session()->count(), 1);
        QCOMPARE(window.controller()->session()->at(0)->id, first);
        QCOMPARE(window.controller()->session()->at(0)->origin, RunOrigin::Restored);
        QVERIFY(window.controller()->session()->at(0)->run->verification->passed);
        QVERIFY(window.controller()->waitForSaved());
    }
    QCOMPARE(savedRuns(sessionFile), 1);
    // Nothing is pending any more: no folder of run traces is left.
    QVERIFY(!QDir(models::PendingRuns::rootFor(sessionFile)).exists());
}

void TestSessionRestore::runThatFinishedAsTheGuiDiedIsRestored() {
    // A GUI dies after a run's child wrote its trace but before the autosave held the run (the
    // trace was loading, or the autosave writing): the trace is in the dead GUI's runs folder.
    const QString folder = home_.filePath(QStringLiteral("finished-as-it-died"));
    QVERIFY(QDir().mkpath(folder));
    const QString sessionFile = QDir(folder).filePath(QStringLiteral("session.json"));
    const QString runsRoot = models::PendingRuns::rootFor(sessionFile);
    QProcess gui;
    gui.setProcessEnvironment(environment(home_));
    gui.start(testhelpers::guiPath(),
              {QStringLiteral("--session-file"), sessionFile, QStringLiteral("--no-samples")});
    QVERIFY(gui.waitForStarted(60'000));
    const QString prefix = QString::number(gui.processId()) + QLatin1Char('-');
    QString runsFolder;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            const QStringList names =
                QDir(runsRoot).entryList({prefix + QLatin1Char('*')}, QDir::Dirs);
            runsFolder = names.isEmpty() ? QString() : QDir(runsRoot).filePath(names.first());
            return !runsFolder.isEmpty();
        }(),
        kGenerousMs);
    QTemporaryDir scratch;
    const QString measured = testhelpers::measuredCpuTrace(scratch); // cpu-serial and cpu-parallel
    QVERIFY(!measured.isEmpty());
    QVERIFY(QFile::copy(measured, QDir(runsFolder).filePath(QStringLiteral("run-1-cpu.json"))));
    gui.kill();
    QVERIFY(gui.waitForFinished(60'000));
    QVERIFY(!QFile::exists(sessionFile)); // the session never held the runs

    StartOptions options;
    options.sessionFile = sessionFile;
    options.noSamples = true;
    {
        MainWindow window(options);
        window.show();
        window.start();
        QVERIFY(restoreBanner(window)->isVisible());
        QVERIFY2(restoreBanner(window)->text().contains(QStringLiteral("1 more run file")),
                 qPrintable(restoreBanner(window)->text()));
        QTest::mouseClick(bannerButton(restoreBanner(window), QStringLiteral("Restore")),
                          Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(window.controller()->session()->count(), 2, kGenerousMs);
        QCOMPARE(window.controller()->session()->at(0)->origin, RunOrigin::Restored);
        QVERIFY(!QDir(runsFolder).exists()); // adopted: the dead GUI's folder is gone
        QTRY_COMPARE_WITH_TIMEOUT(savedRuns(sessionFile), 2, kGenerousMs);
        // Once the autosave holds the runs, their trace is deleted.
        QTRY_VERIFY_WITH_TIMEOUT(tornTracesUnder(runsRoot).isEmpty() &&
                                     QDirIterator(runsRoot, {QStringLiteral("*.json")}, QDir::Files,
                                                  QDirIterator::Subdirectories)
                                             .hasNext() == false,
                                 kGenerousMs);
    }
    QVERIFY(!QDir(runsRoot).exists()); // a clean exit leaves no runs folder behind
    QCOMPARE(savedRuns(sessionFile), 2);
}

void TestSessionRestore::childrenDieWithAKilledGui() {
    // A child that prints nothing (a long kernel, a hung driver call) is not ended by a broken pipe
    // when the GUI dies: stand-in slicescope-cli that only sleeps, for the device query and the
    // run.
    QTemporaryDir scratch;
    const QString fakeCli = scratch.filePath(QStringLiteral("slicescope-cli"));
    {
        QFile script(fakeCli);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.write("#!/bin/sh\nexec sleep 600\n");
    }
    QVERIFY(QFile::setPermissions(fakeCli, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner));
    QProcess gui;
    QProcessEnvironment env = environment(home_);
    env.insert(QStringLiteral("SLICESCOPE_CLI"), fakeCli);
    gui.setProcessEnvironment(env);
    gui.start(testhelpers::guiPath(),
              {QStringLiteral("--session-file"), scratch.filePath(QStringLiteral("session.json")),
               QStringLiteral("--no-samples"), QStringLiteral("--strategies"),
               QStringLiteral("cpu-serial"), QStringLiteral("--run")});
    QVERIFY(gui.waitForStarted(60'000));
    // Both children: `devices --json` and the run.
    std::vector<qint64> children;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            children.clear();
            for (const QString& name : QDir(QStringLiteral("/proc")).entryList(QDir::Dirs)) {
                QFile stat(QStringLiteral("/proc/%1/stat").arg(name));
                if (name.toLongLong() > 0 && stat.open(QIODevice::ReadOnly)) {
                    const QByteArray text = stat.readAll();
                    const QList<QByteArray> fields = text.mid(text.lastIndexOf(')') + 2).split(' ');
                    if (fields.size() > 1 && fields[1].toLongLong() == gui.processId() &&
                        text.contains("(sleep)")) {
                        children.push_back(name.toLongLong());
                    }
                }
            }
            return children.size() == 2;
        }(),
        kGenerousMs);
    gui.kill();
    QVERIFY(gui.waitForFinished(60'000));
    for (const qint64 child : children) {
        QTRY_VERIFY_WITH_TIMEOUT(!isAlive(child), 10'000);
    }
    // The dead GUI's runs folder held no finished trace: the next start removes it.
    const QString runsRoot =
        models::PendingRuns::rootFor(scratch.filePath(QStringLiteral("session.json")));
    QCOMPARE(QDir(runsRoot).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size(), 1);
    { const models::PendingRuns next(runsRoot); }
    QVERIFY(!QDir(runsRoot).exists());
}

void TestSessionRestore::killBeforeTheRestoreKeepsTheSavedRuns() {
    // `slicescope --restore-session TRACE` with a saved session of several runs: the trace loads
    // long before the (large) saved session does. A SIGKILL in between, or at any moment, must
    // find every saved run still in the session file.
    const QString folder = home_.filePath(QStringLiteral("restore-window"));
    QVERIFY(QDir().mkpath(folder));
    const QString sessionFile = QDir(folder).filePath(QStringLiteral("session.json"));
    QVERIFY(trace::writeTrace(
        trace::Trace{"test",
                     {testhelpers::gpuShapedRun("saved-a", trace::RunMode::MeasuredGpu),
                      testhelpers::denseRun("saved-b", 300'000)}},
        sessionFile.toStdString()));
    const QString opened = QDir(folder).filePath(QStringLiteral("opened.json"));
    QVERIFY(trace::writeTrace(trace::Trace{"test", {testhelpers::denseRun("opened", 10)}},
                              opened.toStdString()));
    const QDateTime before = QFileInfo(sessionFile).lastModified();

    QProcess gui;
    gui.setProcessEnvironment(environment(home_));
    gui.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    gui.start(testhelpers::guiPath(),
              {QStringLiteral("--session-file"), sessionFile, QStringLiteral("--restore-session"),
               QStringLiteral("--no-samples"), opened});
    QVERIFY(gui.waitForStarted(60'000));
    // Killed at the first change of the file (the old code's autosave of the one opened run), or
    // after the restore had time to begin.
    const bool changed =
        QTest::qWaitFor([&] { return QFileInfo(sessionFile).lastModified() != before; }, 20'000);
    qInfo("killed %s the session file changed", changed ? "as" : "20 s after the start; before");
    gui.kill();
    QVERIFY(gui.waitForFinished(60'000));
    const LoadResult left = TraceLoader::loadNow(sessionFile, RunOrigin::Restored);
    QVERIFY2(left.ok(), qPrintable(left.error));
    QStringList ids;
    for (const auto& entry : left.runs) {
        ids << entry->id;
    }
    QVERIFY2(ids.contains(QStringLiteral("saved-a")) && ids.contains(QStringLiteral("saved-b")),
             qPrintable(ids.join(QLatin1Char(','))));
}

namespace {

// A window with one opened (and autosaved) run of the user's.
void openOneRun(MainWindow& window, const QTemporaryDir& folder, const QString& sessionFile) {
    const QString opened = testhelpers::writeTrace(
        folder, QStringLiteral("opened.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("g", trace::RunMode::Modelled)}});
    QVERIFY(!opened.isEmpty());
    QSignalSpy loaded(window.controller(), &SessionController::traceLoaded);
    window.openTrace(opened);
    QVERIFY(loaded.wait(kGenerousMs));
    QTRY_COMPARE_WITH_TIMEOUT(savedRuns(sessionFile), 1, kGenerousMs);
}

} // namespace

// File > New session (Ctrl+N) closes every run and empties the autosaved session: only once the
// user says so. Cancel keeps both.
void TestSessionRestore::newSessionAsksFirst() {
    QTemporaryDir folder;
    const QString sessionFile = folder.filePath(QStringLiteral("session.json"));
    StartOptions options;
    options.noSamples = true;
    options.sessionFile = sessionFile;
    MainWindow window(options);
    openOneRun(window, folder, sessionFile);
    QAction* newSession = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
        if (action->shortcut() == QKeySequence(QKeySequence::New)) {
            newSession = action;
        }
    }
    QVERIFY(newSession);
    for (const auto answer : {QMessageBox::Cancel, QMessageBox::Yes}) {
        QVERIFY2(!testhelpers::triggerAnswering(window, newSession, answer).isEmpty(),
                 "New session asks before it closes the runs");
        QVERIFY(window.controller()->waitForSaved());
        const bool kept = answer == QMessageBox::Cancel;
        QCOMPARE(window.controller()->session()->userRunCount(), kept ? 1 : 0);
        QTRY_COMPARE_WITH_TIMEOUT(savedRuns(sessionFile), kept ? 1 : -1, kGenerousMs); // -1: none
    }
}

// File > Close all runs (Ctrl+Shift+W) closes every run, which empties the autosaved session:
// it asks first. No keeps the runs and the file; Yes closes them. With no run of the user's it
// has nothing to ask.
void TestSessionRestore::closeAllAsksFirst() {
    QTemporaryDir folder;
    const QString sessionFile = folder.filePath(QStringLiteral("session.json"));
    StartOptions options;
    options.noSamples = true;
    options.sessionFile = sessionFile;
    MainWindow window(options);
    openOneRun(window, folder, sessionFile);
    auto* closeAll = window.findChild<QAction*>(QStringLiteral("closeAllAction"));
    QVERIFY(closeAll);
    QCOMPARE(closeAll->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+W")));
    for (const auto answer : {QMessageBox::No, QMessageBox::Yes}) {
        const QString question = testhelpers::triggerAnswering(window, closeAll, answer);
        QVERIFY2(question.contains(QStringLiteral("Close all 1 run")), qPrintable(question));
        QVERIFY(window.controller()->waitForSaved());
        const bool kept = answer == QMessageBox::No;
        QCOMPARE(window.controller()->session()->userRunCount(), kept ? 1 : 0);
        QTRY_COMPARE_WITH_TIMEOUT(savedRuns(sessionFile), kept ? 1 : -1, kGenerousMs);
    }
    QVERIFY(testhelpers::triggerAnswering(window, closeAll, QMessageBox::No).isEmpty());
}

// A session the reader could not read back (over its 1 GiB limit, lowered here) was written, then
// moved aside at the next start: every run lost. It is not written: the file keeps the session
// saved before, and the window says so in its error banner and the Log.
void TestSessionRestore::sessionTooLargeToReadBackIsKeptAndShown() {
    QTemporaryDir folder;
    const QString sessionFile = folder.filePath(QStringLiteral("session.json"));
    StartOptions options;
    options.noSamples = true;
    options.sessionFile = sessionFile;
    MainWindow window(options);
    openOneRun(window, folder, sessionFile);
    QFile file(sessionFile);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray good = file.readAll();
    file.close();
    const std::uint64_t bound = std::uint64_t(good.size()) + 100;
    window.controller()->setMaxSessionBytes(bound);
    const QString more = testhelpers::writeTrace(
        folder, QStringLiteral("more.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("h", trace::RunMode::Modelled)}});
    QSignalSpy failed(window.controller(), &SessionController::saveFailed);
    window.openTrace(more);
    QVERIFY(failed.wait(kGenerousMs));
    QVERIFY(window.controller()->waitForSaved());
    const QString said =
        QStringLiteral("its 2 runs would take more than %1 bytes, the most a session file may "
                       "have and still be read back. %2 keeps the session saved before.")
            .arg(bound)
            .arg(sessionFile);
    auto* banner = window.findChild<MessageBanner*>(QStringLiteral("errorBanner"));
    QVERIFY(banner && !banner->isHidden());
    QVERIFY2(banner->text().contains(said.toHtmlEscaped()), qPrintable(banner->text()));
    QVERIFY2(window.findChild<LogPanel*>()->toPlainText().contains(said),
             qPrintable(window.findChild<LogPanel*>()->toPlainText()));
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), good);
    QCOMPARE(savedRuns(sessionFile), 1);
    QCOMPARE(window.controller()->session()->userRunCount(), 2); // the window keeps both
}

// A load that fails, even by throwing (out of memory), ends in an error the window shows, with
// the path said once and the Log in plain text; the next load is not held up by it, and the
// error banner goes once a file opens fine.
void TestSessionRestore::loadErrorsAreShownOnceAndNeverBlock() {
    QTemporaryDir folder;
    const QString good = testhelpers::writeTrace(
        folder, QStringLiteral("good.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("g", trace::RunMode::Modelled)}});
    QVERIFY(!good.isEmpty());
    StartOptions options;
    options.noSamples = true;
    options.sessionFile = folder.filePath(QStringLiteral("session.json"));
    MainWindow window(options);
    auto* banner = window.findChild<MessageBanner*>(QStringLiteral("errorBanner"));
    auto* log = window.findChild<LogPanel*>();
    QVERIFY(banner && log);
    SessionController* controller = window.controller();
    QSignalSpy failed(controller, &SessionController::traceFailed);
    QSignalSpy loaded(controller, &SessionController::traceLoaded);

    // A missing file whose name HTML would escape: named once, and plain in the Log.
    const QString missing = folder.filePath(QStringLiteral("say \"a&b\".json"));
    window.openTrace(missing);
    QVERIFY(failed.wait(kGenerousMs));
    QVERIFY(!banner->isHidden());
    QCOMPARE(banner->text().count(QStringLiteral("a&amp;b")), 1);
    QVERIFY2(log->toPlainText().contains(QStringLiteral("say \"a&b\".json")),
             qPrintable(log->toPlainText()));
    QVERIFY(!log->toPlainText().contains(QStringLiteral("&quot;")));
    QVERIFY(!log->toPlainText().contains(QStringLiteral("&amp;")));

    // A read that throws std::bad_alloc: an error, and the good file after it still opens.
    controller->loader()->setReader(
        [](const QString&, RunOrigin, const trace::ReadOptions&) -> LoadResult {
            throw std::bad_alloc();
        });
    window.openTrace(good);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 2, kGenerousMs);
    QVERIFY(failed.at(1).at(1).toString().contains(QStringLiteral("memory")));
    QTRY_VERIFY_WITH_TIMEOUT(!controller->isLoading(), kGenerousMs);
    controller->loader()->setReader(&TraceLoader::loadNow);
    window.openTrace(good);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(controller->session()->userRunCount(), 1);
    QVERIFY(banner->isHidden()); // the file opened fine: the old error is gone
}

QTEST_MAIN(TestSessionRestore)
#include "tst_sessionrestore.moc"
