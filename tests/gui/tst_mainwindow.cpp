// The main window end to end, offscreen: a corrupt trace leaves it alive with an error banner, a
// CPU run and a modelled run through the real slicescope-cli join the (autosaved) session,
// Cancel, the no-GPU banner, timeline/table selection, drag and drop, export.
#include "gui/gputracepanel.h"
#include "gui/logpanel.h"
#include "gui/mainwindow.h"
#include "gui/messagebanner.h"
#include "gui/runsetupwidget.h"
#include "gui/samplesmenu.h"
#include "gui/timelineplottable.h"
#include "gui/timelineview.h"
#include "models/gputraceproxy.h"
#include "models/session.h"
#include "models/sessioncontroller.h"
#include "models/traceloader.h"
#include "models/viewstate.h"
#include "slicescope/strategy/strategy.h"
#include "testhelpers.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QFuture>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QToolButton>
#include <QUrl>
#include <algorithm>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

constexpr int kGenerousMs = 180'000;
using Controller = SessionController;

// The window's parts, found as a user finds them: by what they are.
MessageBanner* banner(const MainWindow& window, const char* name) {
    return window.findChild<MessageBanner*>(QString::fromLatin1(name));
}
MessageBanner* errorBanner(const MainWindow& window) {
    return banner(window, "errorBanner");
}
RunSetupWidget* runSetup(const MainWindow& window) {
    return window.findChild<RunSetupWidget*>();
}
TimelineView* timelineOf(const MainWindow& window) {
    return window.findChild<TimelineView*>();
}
Session* session(const MainWindow& window) {
    return window.controller()->session();
}

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void corruptTraceShowsAnErrorAndTheWindowLivesOn();
    void cpuRunJoinsTheAutosavedSession();
    void modelledRunThroughTheWindow();
    void runNowWaitsForTheDeviceList();
    void cancelStopsTheRunWithinASecond();
    void noGpuBannerSaysSo();
    void opensTheSeedSampleAtStart();
    void timelineAndTableSelectTogether();
    void twelveRunsFitTheTimelineAtHd();
    void dropOpensFiles();
    void exportsAnImage();
    void savesAndExportsTheSession();
    void largeTextForProjectors();
    void layoutInputsAndRecentFilesPersist();
    void keyboardZoomsAndPans();
    void recordsAProgramIntoTheSession();

  private:
    StartOptions options(const QString& name) const;
    QTemporaryDir dir_;
};

void TestMainWindow::initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true); // settings and data under ~/.qttest, not the user's
    qputenv("SLICESCOPE_CLI", testhelpers::cliPath().toUtf8());
    QApplication::setOrganizationName(QStringLiteral("SliceScopeTest"));
    QApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
}

StartOptions TestMainWindow::options(const QString& name) const {
    StartOptions o;
    o.noSamples = true;
    o.sessionFile = dir_.filePath(name + QStringLiteral("-session.json"));
    QFile::remove(o.sessionFile);
    return o;
}

void TestMainWindow::corruptTraceShowsAnErrorAndTheWindowLivesOn() {
    const QString corrupt = dir_.filePath(QStringLiteral("corrupt.json"));
    QFile file(corrupt);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("{\"format\": \"slicescope-trace\", \"version\": 1, \"runs\": [ {\"id\": 3");
    file.close();
    MainWindow window(options(QStringLiteral("corrupt")));
    window.show();
    window.start();
    QSignalSpy failed(window.controller(), &Controller::traceFailed);
    QSignalSpy loaded(window.controller(), &Controller::traceLoaded);
    window.openTrace(corrupt);
    QVERIFY(failed.wait(kGenerousMs));
    QCOMPARE(failed.at(0).at(0).toString(), corrupt);
    QVERIFY(errorBanner(window)->isVisible());
    // Named once: the reader's "PATH: byte N ..." is not put after "Could not open PATH".
    QCOMPARE(errorBanner(window)->text().count(QStringLiteral("corrupt.json")), 1);
    QVERIFY2(errorBanner(window)->text().contains(QStringLiteral("byte ")),
             qPrintable(errorBanner(window)->text()));
    QVERIFY(session(window)->isEmpty());
    // Still usable: a good trace opens.
    const QString good = testhelpers::writeTrace(
        dir_, QStringLiteral("good.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("a", trace::RunMode::MeasuredGpu)}});
    window.openTrace(good);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(loaded.at(0).at(0).toString(), good);
    QCOMPARE(session(window)->count(), 1);
    QVERIFY(window.isVisible());
}

void TestMainWindow::cpuRunJoinsTheAutosavedSession() {
    const StartOptions o = options(QStringLiteral("cpu"));
    MainWindow window(o);
    window.show();
    window.start();
    RunConfig config;
    config.r = 20;
    config.c = 300;
    config.n = 5;
    config.strategies = {QStringLiteral("cpu-serial"), QStringLiteral("cpu-parallel")};
    runSetup(window)->setConfig(config);
    QSignalSpy finished(window.controller(), &Controller::runFinished);
    window.startRun();
    QVERIFY(window.controller()->isRunning());
    QVERIFY(finished.wait(kGenerousMs));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QTRY_COMPARE_WITH_TIMEOUT(session(window)->count(), 2, kGenerousMs);
    QCOMPARE(session(window)->at(0)->origin, RunOrigin::Measured);
    QVERIFY(session(window)->at(0)->run->mode == trace::RunMode::MeasuredCpu);
    QVERIFY(!errorBanner(window)->isVisible());
    // Autosaved: the file holds both runs.
    QVERIFY(window.controller()->waitForSaved());
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(o.sessionFile), kGenerousMs);
    QVERIFY(window.controller()->waitForSaved());
    const LoadResult saved = TraceLoader::loadNow(o.sessionFile, RunOrigin::Restored);
    QVERIFY2(saved.ok(), qPrintable(saved.error));
    QCOMPARE(saved.runs.size(), std::size_t(2));
    // Both runs are on the timeline.
    QCOMPARE(timelineOf(window)->plottable()->runs().size(), std::size_t(2));
}

void TestMainWindow::modelledRunThroughTheWindow() {
    QByteArray devices;
    QCOMPARE(testhelpers::runCli({QStringLiteral("devices"), QStringLiteral("--json")}, &devices),
             0);
    const auto presets =
        QJsonDocument::fromJson(devices).object().value(QStringLiteral("presets")).toArray();
    QVERIFY2(!presets.isEmpty(), "slicescope-cli lists no device presets (they are built in)");
    const QString preset = presets.at(0).toObject().value(QStringLiteral("id")).toString();
    StartOptions o = options(QStringLiteral("modelled"));
    RunConfig config;
    config.strategies = {QStringLiteral("one-worker"), QStringLiteral("slice-outer")};
    o.run = config;
    o.device = preset;
    MainWindow window(o);
    window.show();
    window.start();
    QSignalSpy finished(window.controller(), &Controller::runFinished);
    // The device list arrives from the CLI asynchronously; the preset is picked when it does.
    QTRY_VERIFY_WITH_TIMEOUT(runSetup(window)->config().device.presetId == preset, kGenerousMs);
    window.startRun();
    QVERIFY(finished.wait(kGenerousMs));
    QTRY_COMPARE_WITH_TIMEOUT(session(window)->count(), 2, kGenerousMs);
    for (const auto& entry : session(window)->runs()) {
        QVERIFY(entry->isModelled());
    }
    QVERIFY(!errorBanner(window)->isVisible());
}

void TestMainWindow::runNowWaitsForTheDeviceList() {
    QByteArray devices;
    QCOMPARE(testhelpers::runCli({QStringLiteral("devices"), QStringLiteral("--json")}, &devices),
             0);
    const auto presets =
        QJsonDocument::fromJson(devices).object().value(QStringLiteral("presets")).toArray();
    QVERIFY2(!presets.isEmpty(), "slicescope-cli lists no device presets (they are built in)");
    // As `slicescope --strategies slice-2d,cpu-serial --device PRESET --run`: the run is asked for
    // before the device list has arrived, and must start once it has, on the preset.
    StartOptions o = options(QStringLiteral("runnow"));
    RunConfig config;
    config.r = 10;
    config.c = 100;
    config.n = 5;
    config.strategies = {QStringLiteral("slice-2d"), QStringLiteral("cpu-serial")};
    o.run = config;
    o.device = presets.at(0).toObject().value(QStringLiteral("id")).toString();
    o.runNow = true;
    MainWindow window(o);
    QSignalSpy finished(window.controller(), &Controller::runFinished);
    window.show();
    window.start();
    QVERIFY(finished.wait(kGenerousMs));
    QTRY_COMPARE_WITH_TIMEOUT(session(window)->count(), 2, kGenerousMs);
    QVERIFY(!errorBanner(window)->isVisible());
    QVERIFY(session(window)->find(QStringLiteral("slice-2d"))->isModelled());
    QVERIFY(session(window)->find(QStringLiteral("cpu-serial"))->run->mode ==
            trace::RunMode::MeasuredCpu);
}

void TestMainWindow::cancelStopsTheRunWithinASecond() {
    StartOptions o = options(QStringLiteral("cancel"));
    RunConfig config;
    config.repeat = 10000; // the seed's shape, far longer than the test
    config.strategies = {QStringLiteral("cpu-serial")};
    o.run = config;
    MainWindow window(o);
    window.show();
    window.start();
    QSignalSpy progress(window.controller(), &Controller::runProgress);
    QSignalSpy finished(window.controller(), &Controller::runFinished);
    window.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() >= 2, kGenerousMs);
    QElapsedTimer timer;
    timer.start();
    window.cancelRun();
    QVERIFY(finished.wait(5000));
    QVERIFY2(timer.elapsed() < 1000, qPrintable(QString::number(timer.elapsed())));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY(session(window)->isEmpty());
    QVERIFY(!window.controller()->isRunning());
    QVERIFY(!errorBanner(window)->isVisible()); // a cancel is not an error
}

void TestMainWindow::noGpuBannerSaysSo() {
    QByteArray devices;
    QCOMPARE(testhelpers::runCli({QStringLiteral("devices"), QStringLiteral("--json")}, &devices),
             0);
    if (!QJsonDocument::fromJson(devices)
             .object()
             .value(QStringLiteral("devices"))
             .toArray()
             .isEmpty()) {
        QSKIP("this machine has a GPU");
    }
    MainWindow window(options(QStringLiteral("nogpu")));
    window.show();
    window.start();
    QTRY_VERIFY_WITH_TIMEOUT(banner(window, "infoBanner")->isVisible(), kGenerousMs);
    QVERIFY(banner(window, "infoBanner")->text().contains(QStringLiteral("No NVIDIA GPU here")));
    QVERIFY(banner(window, "infoBanner")->text().contains(QStringLiteral("modelled")));
    // One line of the window until the user asks for more (at 1280x720 a four-line banner left
    // the timeline three rows).
    MessageBanner* info = banner(window, "infoBanner");
    window.resize(1280, 720);
    QTRY_VERIFY(info->height() < 2 * info->fontMetrics().height() + 16);
    QVERIFY(!info->text().contains(QStringLiteral("Why:"))); // the cause waits behind More
    QVERIFY(!info->text().contains(QStringLiteral("open traces")));
    info->findChild<QToolButton*>(QStringLiteral("bannerMore"))->click();
    QVERIFY(info->detailsShown());
    QVERIFY(info->text().contains(QStringLiteral("open traces")));
}

void TestMainWindow::opensTheSeedSampleAtStart() {
    // resources/samples holds traces, and every one is compiled in: none means a broken build.
    QVERIFY(!SamplesMenu::sampleTraces().isEmpty());
    QVERIFY(
        SamplesMenu::startSample().endsWith(QStringLiteral("seed-100x4000x5-f64-pageable.json")));
    StartOptions o = options(QStringLiteral("samples"));
    o.noSamples = false;
    MainWindow window(o);
    window.show();
    window.start();
    // The one sample, all of its runs, measured; the others wait in File > Open sample.
    const LoadResult sample = TraceLoader::loadNow(SamplesMenu::startSample(), RunOrigin::Sample);
    QVERIFY2(sample.ok(), qPrintable(sample.error));
    QTRY_COMPARE_WITH_TIMEOUT(session(window)->count(), int(sample.runs.size()), kGenerousMs);
    for (const auto& entry : session(window)->runs()) {
        QVERIFY(entry->origin == RunOrigin::Sample);
        QVERIFY(!entry->isModelled());
    }
}

void TestMainWindow::timelineAndTableSelectTogether() {
    MainWindow window(options(QStringLiteral("select")));
    window.show();
    window.start();
    QSignalSpy loaded(window.controller(), &Controller::traceLoaded);
    window.openTrace(testhelpers::writeTrace(
        dir_, QStringLiteral("select.json"),
        trace::Trace{"test",
                     {testhelpers::gpuShapedRun("slice-outer", trace::RunMode::MeasuredGpu, 3)}}));
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(window.viewState()->selectedRun(), QStringLiteral("slice-outer"));
    // Timeline -> table: the second kernel (activity 6).
    window.viewState()->setSelectedActivity({QStringLiteral("slice-outer"), 6});
    auto* panel = window.findChild<GpuTracePanel*>();
    QTableView* table = panel->table();
    QVERIFY(table->currentIndex().isValid());
    QCOMPARE(table->currentIndex().row(), panel->proxy()->rowOfActivity(6));
    // Table -> timeline: pick the last row.
    const int last = panel->proxy()->rowCount() - 1;
    table->setCurrentIndex(panel->proxy()->index(last, 0));
    QCOMPARE(window.viewState()->selectedActivity().index, 11); // the third DtoH
    // An API event is not in nvprof's gpu trace: selecting it reveals the host/API rows.
    window.viewState()->setSelectedActivity({QStringLiteral("slice-outer"), 4});
    QCOMPARE(table->currentIndex().row(), panel->proxy()->rowOfActivity(4));
    QVERIFY(panel->proxy()->showAll());
}

void TestMainWindow::twelveRunsFitTheTimelineAtHd() {
    // A comparison as a user builds one: every GPU strategy modelled for the H200 (eight), three
    // for a GTX 970, the two CPU strategies measured here. In the window at 1920x1080 the overview
    // shows all thirteen runs with no scrolling.
    const QString h200 = dir_.filePath(QStringLiteral("twelve-h200.json"));
    const QString gtx = dir_.filePath(QStringLiteral("twelve-gtx970.json"));
    const QString shape = QStringLiteral("100x4000x5");
    QCOMPARE(testhelpers::runCli({QStringLiteral("model"), QStringLiteral("--device"),
                                  QStringLiteral("h200"), QStringLiteral("--shape"), shape,
                                  QStringLiteral("--strategy"), QStringLiteral("all"),
                                  QStringLiteral("-q"), QStringLiteral("-o"), h200}),
             0);
    QCOMPARE(testhelpers::runCli({QStringLiteral("model"), QStringLiteral("--device"),
                                  QStringLiteral("gtx-970"), QStringLiteral("--shape"), shape,
                                  QStringLiteral("--strategy"),
                                  QStringLiteral("slice-outer,slice-middle,elementwise-broadcast"),
                                  QStringLiteral("-q"), QStringLiteral("-o"), gtx}),
             0);
    const QString cpu = testhelpers::measuredCpuTrace(dir_, shape, 1);
    QVERIFY(!cpu.isEmpty());
    MainWindow window(options(QStringLiteral("twelve")));
    window.resize(1920, 1080);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.start();
    for (const QString& file : {h200, gtx, cpu}) {
        window.openTrace(file);
    }
    const auto gpuStrategies = std::count_if(
        strategy::allStrategies().begin(), strategy::allStrategies().end(),
        [](const strategy::StrategyInfo& s) { return s.target == strategy::Target::Gpu; });
    QTRY_COMPARE_WITH_TIMEOUT(session(window)->count(), int(gpuStrategies) + 3 + 2, kGenerousMs);
    auto* timeline = window.findChild<TimelineView*>();
    QVERIFY(timeline);
    QTRY_VERIFY(timeline->visibleRows() > 0);
    QTest::qWait(50);
    QVERIFY2(timeline->plottable()->contentHeight() <= timeline->visibleRows() + 1e-9,
             qPrintable(QStringLiteral("%1 rows of content, %2 shown")
                            .arg(timeline->plottable()->contentHeight())
                            .arg(timeline->visibleRows())));
    QVERIFY(!timeline->verticalScrollBar()->isVisible());
}

void TestMainWindow::dropOpensFiles() {
    MainWindow window(options(QStringLiteral("drop")));
    window.show();
    window.start();
    const QString path =
        testhelpers::writeTrace(dir_, QStringLiteral("dropped.json"),
                                trace::Trace{"test", {testhelpers::denseRun("dropped", 10)}});
    QSignalSpy loaded(window.controller(), &Controller::traceLoaded);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(session(window)->count(), 1);
    QCOMPARE(session(window)->at(0)->id, QStringLiteral("dropped"));
}

void TestMainWindow::exportsAnImage() {
    MainWindow window(options(QStringLiteral("export")));
    window.show();
    window.start();
    QSignalSpy loaded(window.controller(), &Controller::traceLoaded);
    window.openTrace(testhelpers::writeTrace(
        dir_, QStringLiteral("export.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("a", trace::RunMode::Modelled)}}));
    QVERIFY(loaded.wait(kGenerousMs));
    const QString out = dir_.filePath(QStringLiteral("window.png"));
    QString error;
    QVERIFY2(window.exportImage(out, QSize(1024, 768), 96, &error), qPrintable(error));
    QCOMPARE(QImage(out).size(), QSize(1024, 768));
    QVERIFY(!window.exportImage(dir_.filePath(QStringLiteral("window.xyz")), QSize(1024, 768), 96));
    QVERIFY(errorBanner(window)->isVisible()); // shown in the window, not a dialog
}

void TestMainWindow::savesAndExportsTheSession() {
    MainWindow window(options(QStringLiteral("save")));
    window.show();
    window.start();
    QSignalSpy loaded(window.controller(), &Controller::traceLoaded);
    // Two files with a run of one id each (one trace may not hold two: docs/trace-format.md).
    window.openTrace(testhelpers::writeTrace(
        dir_, QStringLiteral("save-in.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("g", trace::RunMode::MeasuredGpu, 2)}}));
    QVERIFY(loaded.wait(kGenerousMs));
    window.openTrace(testhelpers::writeTrace(
        dir_, QStringLiteral("save-in-2.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("g", trace::RunMode::Modelled)}}));
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(session(window)->count(), 2);

    const QString saved = dir_.filePath(QStringLiteral("saved.json"));
    QFuture<QString> done =
        window.controller()->exportSession(saved, Controller::ExportFormat::Trace);
    done.waitForFinished();
    QVERIFY2(done.result().isEmpty(), qPrintable(done.result()));
    const LoadResult back = TraceLoader::loadNow(saved, RunOrigin::Opened);
    QVERIFY2(back.ok(), qPrintable(back.error));
    QCOMPARE(back.runs.size(), std::size_t(2));
    QCOMPARE(back.runs[1]->id, QStringLiteral("g-2")); // the session's unique ids
    QVERIFY(back.runs[1]->isModelled());

    const QString csv = dir_.filePath(QStringLiteral("saved.csv"));
    done = window.controller()->exportSession(csv, Controller::ExportFormat::Csv);
    done.waitForFinished();
    QVERIFY2(done.result().isEmpty(), qPrintable(done.result()));
    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly));
    const QByteArray csvText = csvFile.readAll();
    QVERIFY(csvText.contains("Duration"));
    QVERIFY(csvText.contains("sliceOuterKernel"));
    QVERIFY(csvText.contains("modelled"));

    const QString chrome = dir_.filePath(QStringLiteral("saved-chrome.json"));
    done = window.controller()->exportSession(chrome, Controller::ExportFormat::Chrome);
    done.waitForFinished();
    QVERIFY2(done.result().isEmpty(), qPrintable(done.result()));
    QFile chromeFile(chrome);
    QVERIFY(chromeFile.open(QIODevice::ReadOnly));
    const QJsonObject chromeTrace = QJsonDocument::fromJson(chromeFile.readAll()).object();
    QVERIFY(chromeTrace.value(QStringLiteral("traceEvents")).toArray().size() > 10);

    // A path that cannot be written: an error in the window, no crash.
    done = window.controller()->exportSession(QStringLiteral("/nonexistent-dir/x.json"),
                                              Controller::ExportFormat::Trace);
    done.waitForFinished();
    QVERIFY(!done.result().isEmpty());
    QTRY_VERIFY(errorBanner(window)->isVisible());
}

void TestMainWindow::largeTextForProjectors() {
    MainWindow window(options(QStringLiteral("large")));
    window.show();
    window.start();
    QAction* large = nullptr;
    for (QAction* action : window.findChildren<QAction*>()) {
        if (action->text().contains(QStringLiteral("Large text"))) {
            large = action;
        }
    }
    QVERIFY(large);
    const double before = timelineOf(window)->xAxis->tickLabelFont().pointSizeF();
    large->trigger();
    QVERIFY(timelineOf(window)->xAxis->tickLabelFont().pointSizeF() > before * 1.3);
    QVERIFY(QApplication::font().pointSizeF() > 0);
    large->trigger();
    QCOMPARE(timelineOf(window)->xAxis->tickLabelFont().pointSizeF(), before);
}

void TestMainWindow::layoutInputsAndRecentFilesPersist() {
    QSettings().clear();
    const QString path =
        testhelpers::writeTrace(dir_, QStringLiteral("recent.json"),
                                trace::Trace{"test", {testhelpers::denseRun("recent", 5)}});
    {
        MainWindow window(options(QStringLiteral("persist")));
        window.show();
        window.start();
        QSignalSpy loaded(window.controller(), &Controller::traceLoaded);
        window.openTrace(path);
        QVERIFY(loaded.wait(kGenerousMs));
        RunConfig config = runSetup(window)->config();
        config.r = 321;
        config.strategies = {QStringLiteral("cpu-parallel")};
        runSetup(window)->setConfig(config);
        window.findChild<QDockWidget*>(QStringLiteral("logDock"))->hide();
        window.close(); // saves the layout and the inputs
    }
    QSettings settings;
    QCOMPARE(settings.value(QStringLiteral("recentFiles")).toStringList().value(0),
             QFileInfo(path).absoluteFilePath());
    QVERIFY(settings.contains(QStringLiteral("window/state")));
    MainWindow again(options(QStringLiteral("persist2")));
    again.show();
    QCOMPARE(runSetup(again)->config().r, quint64(321));
    QCOMPARE(runSetup(again)->config().strategies, QStringList{QStringLiteral("cpu-parallel")});
    QVERIFY(again.findChild<QDockWidget*>(QStringLiteral("logDock"))->isHidden());
    bool listed = false;
    for (QAction* action : again.findChildren<QAction*>()) {
        listed = listed || action->text().endsWith(QFileInfo(path).absoluteFilePath());
    }
    QVERIFY(listed); // File > Open recent
}

void TestMainWindow::keyboardZoomsAndPans() {
    MainWindow window(options(QStringLiteral("keys")));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.start();
    QSignalSpy loaded(window.controller(), &Controller::traceLoaded);
    window.openTrace(testhelpers::writeTrace(
        dir_, QStringLiteral("keys.json"),
        trace::Trace{"test", {testhelpers::gpuShapedRun("k", trace::RunMode::MeasuredGpu, 3)}}));
    QVERIFY(loaded.wait(kGenerousMs));
    TimelineView* timeline = timelineOf(window);
    timeline->setFocus();
    const QCPRange full = timeline->xAxis->range();
    QTest::keyClick(timeline, Qt::Key_W);
    const QCPRange zoomed = timeline->xAxis->range();
    QVERIFY(zoomed.size() < full.size() * 0.9);
    QTest::keyClick(timeline, Qt::Key_D);
    QVERIFY(timeline->xAxis->range().lower > zoomed.lower);
    QTest::keyClick(timeline, Qt::Key_A);
    QTest::keyClick(timeline, Qt::Key_A);
    QVERIFY(timeline->xAxis->range().lower < zoomed.lower);
    QTest::keyClick(timeline, Qt::Key_S);
    QVERIFY(timeline->xAxis->range().size() > zoomed.size());
    QTest::keyClick(&window, Qt::Key_Home); // reset, from anywhere in the window
    QCOMPARE(timeline->xAxis->range().lower, full.lower);
    QCOMPARE(timeline->xAxis->range().upper, full.upper);
}

void TestMainWindow::recordsAProgramIntoTheSession() {
    MainWindow window(options(QStringLiteral("record")));
    window.show();
    window.start();
    auto* action = window.findChild<QAction*>(QStringLiteral("recordAction"));
    QVERIFY(action);
    QVERIFY(action->isEnabled());
    QVERIFY(action->text().contains(QStringLiteral("Record")));
    RecordConfig config;
    config.program = QStringLiteral("sh");
    config.arguments = {QStringLiteral("-c"), QStringLiteral("echo recorded by the window")};
    QSignalSpy finished(window.controller(), &Controller::runFinished);
    window.startRecording(config);
    QVERIFY(window.controller()->isRunning());
    QVERIFY(!action->isEnabled()); // one child at a time
    QVERIFY(finished.wait(kGenerousMs));
    if (errorBanner(window)->isVisible() &&
        errorBanner(window)->text().contains(QStringLiteral("injection library"))) {
        QSKIP("this build has no CUPTI injection library");
    }
    QTRY_COMPARE_WITH_TIMEOUT(session(window)->count(), 1, kGenerousMs);
    QVERIFY(session(window)->at(0)->run->mode == trace::RunMode::Recorded);
    QVERIFY(window.findChild<LogPanel*>()->toPlainText().contains(
        QStringLiteral("recorded by the window")));
    QVERIFY(action->isEnabled());
    QVERIFY(!errorBanner(window)->isVisible());
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
