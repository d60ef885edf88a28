// "Run > Project selected run onto" (and the Runs table's context menu), offscreen: the measured
// H200 sample's slice-middle projected onto a T4 joins the session as a projected run, labelled
// projected wherever the GUI names a run's mode, and never called measured.
#include "gui/mainwindow.h"
#include "gui/runspanel.h"
#include "models/runbreakdown.h"
#include "models/runentry.h"
#include "models/runlistmodel.h"
#include "models/session.h"
#include "models/sessioncontroller.h"
#include "models/viewstate.h"
#include "testhelpers.h"

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using namespace slicescope;
using namespace slicescope::models;
using namespace slicescope::gui;

namespace {

constexpr int kGenerousMs = 180'000;

QAction* presetAction(QMenu* menu, const QString& presetId) {
    for (QAction* action : menu->actions()) {
        if (action->data().toString() == presetId) {
            return action;
        }
    }
    return nullptr;
}

} // namespace

class TestProjectMenu : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void projectsTheSelectedMeasuredRunOntoAPreset();

  private:
    QTemporaryDir dir_;
};

void TestProjectMenu::initTestCase() {
    QVERIFY(dir_.isValid());
    QStandardPaths::setTestModeEnabled(true);
    qputenv("SLICESCOPE_CLI", testhelpers::cliPath().toUtf8());
    QApplication::setOrganizationName(QStringLiteral("SliceScopeTest"));
    QApplication::setApplicationName(QStringLiteral("tst_projectmenu"));
}

void TestProjectMenu::projectsTheSelectedMeasuredRunOntoAPreset() {
    StartOptions o;
    o.noSamples = true;
    o.sessionFile = dir_.filePath(QStringLiteral("project-session.json"));
    MainWindow window(o);
    window.show();
    window.start();
    QSignalSpy loaded(window.controller(), &SessionController::traceLoaded);
    window.openTrace(QStringLiteral(SLICESCOPE_SAMPLES_DIR "/seed-100x4000x5-f64-pageable.json"));
    QVERIFY(loaded.wait(kGenerousMs));
    Session* session = window.controller()->session();
    const int measuredRuns = session->count();
    QCOMPARE(measuredRuns, 9);

    auto* menu = window.findChild<QMenu*>(QStringLiteral("projectMenu"));
    QVERIFY(menu != nullptr);
    // In the Runs table's context menu too.
    auto* runs = window.findChild<RunsPanel*>();
    QVERIFY(runs != nullptr && runs->table()->actions().contains(menu->menuAction()));
    // Only a run measured on a GPU can be projected.
    window.viewState()->setSelectedRun(QStringLiteral("cpu-serial"));
    QVERIFY(!menu->isEnabled());
    window.viewState()->setSelectedRun(QStringLiteral("slice-middle"));
    QVERIFY(menu->isEnabled());

    QAction* t4 = presetAction(menu, QStringLiteral("t4"));
    QVERIFY(t4 != nullptr);
    QCOMPARE(t4->text(), QStringLiteral("Tesla T4"));
    QSignalSpy projected(window.controller(), &SessionController::projected);
    t4->trigger();
    QVERIFY(projected.wait(kGenerousMs));
    QCOMPARE(projected.at(0).at(0).toInt(), 1);
    QVERIFY(projected.at(0).at(1).toStringList().isEmpty());
    QCOMPARE(session->count(), measuredRuns + 1);

    const RunEntryPtr source = session->find(QStringLiteral("slice-middle"));
    const RunEntryPtr entry = session->at(measuredRuns);
    QCOMPARE(entry->id, QStringLiteral("slice-middle@t4")); // named by what differs: its device
    QVERIFY(entry->run->mode == trace::RunMode::Projected);
    QVERIFY(entry->isPredicted());
    QCOMPARE(entry->predictedWord(), QStringLiteral("projected"));
    QCOMPARE(toQString(entry->run->device.name), QStringLiteral("Tesla T4"));
    QVERIFY(entry->run->projection.has_value());
    QCOMPARE(toQString(entry->run->projection->sourceRun), source->id);
    QCOMPARE(toQString(entry->run->projection->targetPreset), QStringLiteral("t4"));
    // Its kernels, copies and host work are the source's, moved by the model's ratios: the kernel
    // time changes, the host layout passes do not.
    QVERIFY(entry->summary.kernelNs != source->summary.kernelNs);
    QCOMPARE(entry->summary.hostLayoutNs, source->summary.hostLayoutNs);

    // The Runs table names its mode projected, its verification not applicable, and its verdict
    // says it is a projection; the breakdown chart's row says projected (and is hatched).
    RunListModel list(session);
    const int row = session->indexOf(entry->id);
    QCOMPARE(list.data(list.index(row, RunListModel::ModeColumn)).toString(),
             QStringLiteral("projected"));
    QCOMPARE(list.data(list.index(row, RunListModel::VerifiedColumn)).toString(),
             QStringLiteral("n/a (projected)"));
    QVERIFY2(entry->verdict.startsWith(QStringLiteral("projected onto the Tesla T4 from ") +
                                       source->id + QStringLiteral(" measured on the NVIDIA H200")),
             qPrintable(entry->verdict));
    QVERIFY(!entry->verdict.contains(QStringLiteral("measured on the Tesla T4")));
    bool found = false;
    for (const BreakdownRow& r : breakdownRows(session->runs())) {
        if (r.runId == entry->id) {
            found = true;
            QCOMPARE(r.predicted, QStringLiteral("projected"));
        } else if (r.runId == source->id) {
            QVERIFY(r.predicted.isEmpty()); // the source stays measured
        }
    }
    QVERIFY(found);
}

QTEST_MAIN(TestProjectMenu)
#include "tst_projectmenu.moc"
