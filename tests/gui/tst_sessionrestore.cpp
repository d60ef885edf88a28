// A killed GUI loses no finished run: a real slicescope process runs a strategy, is SIGKILLed,
// and the next start offers the run back and restores it.
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>

#include "gui/mainwindow.h"
#include "gui/messagebanner.h"
#include "models/session.h"
#include "models/sessionstore.h"
#include "models/traceloader.h"
#include "testhelpers.h"

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

} // namespace

class TestSessionRestore : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void killedGuiLosesNoFinishedRun();
    void killDuringARunKeepsTheSavedSession();

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
    gui.start(testhelpers::guiPath(),
              {QStringLiteral("--session-file"), sessionFile_, QStringLiteral("--no-samples"), QStringLiteral("--shape"),
               QStringLiteral("10x200x5"), QStringLiteral("--strategies"), QStringLiteral("cpu-serial"),
               QStringLiteral("--run")});
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
    QVERIFY(window.restoreBanner()->isVisible());
    QVERIFY(window.restoreBanner()->text().contains(QStringLiteral("Restore")));
    QVERIFY(window.session()->isEmpty());
    QPushButton* restore = nullptr;
    for (auto* button : window.restoreBanner()->findChildren<QPushButton*>()) {
        if (button->text() == QStringLiteral("Restore")) {
            restore = button;
        }
    }
    QVERIFY(restore);
    QSignalSpy loaded(&window, &MainWindow::traceLoaded);
    QTest::mouseClick(restore, Qt::LeftButton);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(window.session()->count(), 1);
    QCOMPARE(window.session()->at(0)->id, QStringLiteral("cpu-serial"));
    QCOMPARE(window.session()->at(0)->origin, RunOrigin::Restored);
    QVERIFY(window.session()->at(0)->run->verification->passed);
    QVERIFY(!window.restoreBanner()->isVisible());
}

void TestSessionRestore::killDuringARunKeepsTheSavedSession() {
    QCOMPARE(savedRuns(sessionFile_), 1); // from the test above
    const QDateTime before = QFileInfo(sessionFile_).lastModified();
    QProcess gui;
    gui.setProcessEnvironment(environment(home_));
    gui.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    gui.start(testhelpers::guiPath(),
              {QStringLiteral("--session-file"), sessionFile_, QStringLiteral("--restore-session"),
               QStringLiteral("--no-samples"), QStringLiteral("--shape"), QStringLiteral("100x4000x5"),
               QStringLiteral("--strategies"), QStringLiteral("cpu-serial"), QStringLiteral("--repeat"),
               QStringLiteral("10000"), QStringLiteral("--run")});
    QVERIFY(gui.waitForStarted(60'000));
    // Restored and saved again (a new file, renamed over the old one); the long run is still going.
    QTRY_VERIFY_WITH_TIMEOUT(QFileInfo(sessionFile_).lastModified() != before, kGenerousMs);
    QCOMPARE(savedRuns(sessionFile_), 1);
    gui.kill();
    QVERIFY(gui.waitForFinished(60'000));
    QCOMPARE(savedRuns(sessionFile_), 1); // intact, never torn
}

QTEST_MAIN(TestSessionRestore)
#include "tst_sessionrestore.moc"
