// Other tools' files in the main window (docs/import.md): dropped or opened, a PyTorch profiler
// trace and an Nsight Compute CSV go through the engine's loader like any trace and show their
// runs, kernels and occupancy facts. The files are the real ones of tests/data/import.
#include "gui/mainwindow.h"
#include "gui/occupancyview.h"
#include "models/occupancyfacts.h"
#include "models/runentry.h"
#include "models/session.h"
#include "models/sessioncontroller.h"
#include "models/viewstate.h"
#include "slicescope/trace/runsummary.h"
#include "testhelpers.h"

#include <QApplication>
#include <QComboBox>
#include <QDropEvent>
#include <QMimeData>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <algorithm>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

constexpr int kGenerousMs = 180'000;

QString importFile(const char* name) {
    return QStringLiteral(SLICESCOPE_TEST_DATA_DIR "/import/") + QString::fromLatin1(name);
}

Session* session(const MainWindow& window) {
    return window.controller()->session();
}

int kernelCount(const trace::Run& run) {
    return int(
        std::count_if(run.activities.begin(), run.activities.end(), [](const trace::Activity& a) {
            return a.kind == trace::ActivityKind::Kernel;
        }));
}

} // namespace

class TestImportOpen : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void droppedKinetoTraceShowsKernelsAndOccupancy();
    void openedNcuCsvShowsMeasuredAchievedOccupancy();

  private:
    StartOptions options(const QString& name) const;
    QTemporaryDir dir_;
};

void TestImportOpen::initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    qputenv("SLICESCOPE_CLI", testhelpers::cliPath().toUtf8());
    QApplication::setOrganizationName(QStringLiteral("SliceScopeTest"));
    QApplication::setApplicationName(QStringLiteral("tst_importopen"));
}

StartOptions TestImportOpen::options(const QString& name) const {
    StartOptions o;
    o.noSamples = true;
    o.sessionFile = dir_.filePath(name + QStringLiteral("-session.json"));
    return o;
}

void TestImportOpen::droppedKinetoTraceShowsKernelsAndOccupancy() {
    MainWindow window(options(QStringLiteral("kineto")));
    window.show();
    window.start();
    QSignalSpy loaded(window.controller(), &SessionController::traceLoaded);
    QSignalSpy failed(window.controller(), &SessionController::traceFailed);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(importFile("kineto-cnn.json"))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &drop);
    QVERIFY2(loaded.wait(kGenerousMs),
             failed.isEmpty() ? "no result" : qPrintable(failed.at(0).value(1).toString()));
    QCOMPARE(session(window)->count(), 1);
    const RunEntryPtr entry = session(window)->at(0);
    QCOMPARE(entry->id, QStringLiteral("kineto-cnn"));
    QVERIFY(entry->run->mode == trace::RunMode::Imported);
    QCOMPARE(kernelCount(*entry->run), 30);
    QCOMPARE(modeText(entry->run->mode), QStringLiteral("imported from another tool's file"));
    QVERIFY(!entry->kernels.isEmpty());

    // The occupancy chart has a row per kernel, with the calculator's theoretical occupancy.
    const QVector<OccupancyRow> rows = occupancyRows(session(window)->runs());
    QSet<QString> names;
    for (const KernelGroup& group : entry->kernels) {
        names.insert(group.name);
    }
    QCOMPARE(rows.size(), names.size());
    for (const OccupancyRow& row : rows) {
        QVERIFY(row.theoretical > 0 && row.theoretical <= 1);
        QVERIFY(!row.achieved.has_value()); // the profiler's estimate is no measurement
    }

    // The occupancy view shows the selected run's first kernel: its launch, limiter and figure.
    auto* view = window.findChild<OccupancyView*>();
    QVERIFY(view != nullptr);
    window.viewState()->setSelectedRun(entry->id);
    QVERIFY(!view->kernelChoice()->isHidden());
    QCOMPARE(view->kernelChoice()->count(), entry->kernels.size());
    const OccupancyFacts& facts = view->facts();
    QVERIFY(facts.hasLaunch);
    QVERIFY(facts.title.contains(QStringLiteral("NVIDIA H200")));
    const KernelGroup& first = entry->kernels.front();
    QVERIFY(first.theoretical.has_value());
    QCOMPARE(facts.theoretical, *first.theoretical);
    QCOMPARE(facts.blockSize, std::uint32_t(first.block.count()));
    QVERIFY(facts.limiterWords.startsWith(QStringLiteral("Per-SM limiter: ")));
    QVERIFY(!facts.achieved.has_value());
    // The profiler's estimate is shown as one, beside what the file cannot say.
    const trace::Activity& launch = entry->run->activities[std::size_t(first.firstActivity)];
    QVERIFY(first.estimated.has_value());
    QCOMPARE(*first.estimated, launch.estimatedOccupancyPercent / 100.0);
    QVERIFY(facts.launchWords.contains(
        QStringLiteral("the profiler's estimate of achieved occupancy: %1 (worked out from the "
                       "launch, not measured)")
            .arg(toQString(trace::formatPercent(*first.estimated)))));
    QVERIFY(facts.launchWords.contains(QStringLiteral("(the file does not say)")));
    // Every kernel has a name of its own in the charts: PyTorch's kernels sit in anonymous
    // namespaces, which are no parameter list.
    QCOMPARE(
        shortKernelName(QStringLiteral("void (anonymous namespace)::softmax_warp_forward<float, "
                                       "4>(float*, float const*, int)")),
        QStringLiteral("softmax_warp_forward<float, 4>"));
    QSet<QString> shortNames;
    for (const KernelGroup& group : entry->kernels) {
        shortNames.insert(shortKernelName(group.name));
    }
    QVERIFY(!shortNames.contains(QStringLiteral("void")));
}

void TestImportOpen::openedNcuCsvShowsMeasuredAchievedOccupancy() {
    MainWindow window(options(QStringLiteral("ncu")));
    window.show();
    window.start();
    QSignalSpy loaded(window.controller(), &SessionController::traceLoaded);
    window.openTrace(importFile("ncu-cnn-raw.csv"));
    QVERIFY(loaded.wait(kGenerousMs));
    QCOMPARE(session(window)->count(), 1);
    const RunEntryPtr entry = session(window)->at(0);
    QVERIFY(entry->run->mode == trace::RunMode::Imported);
    QCOMPARE(kernelCount(*entry->run), 30);
    const QVector<OccupancyRow> rows = occupancyRows(session(window)->runs());
    QVERIFY(!rows.isEmpty());
    for (const OccupancyRow& row : rows) {
        QVERIFY(row.achieved.has_value()); // Nsight Compute measured it
        QVERIFY(*row.achieved <= row.theoretical + 1e-6);
    }
    window.viewState()->setSelectedRun(entry->id);
    auto* view = window.findChild<OccupancyView*>();
    QVERIFY(view != nullptr);
    QVERIFY(view->facts().hasLaunch);
    QVERIFY(view->facts().achieved.has_value());
    QVERIFY(view->facts().title.contains(QStringLiteral("NVIDIA H200")));
}

QTEST_MAIN(TestImportOpen)
#include "tst_importopen.moc"
